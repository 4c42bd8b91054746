/// `authflow demo [--config F]`: `serve --sandbox` on ./providers.yaml.
enum DemoCommand {
    static let usageText = """
        usage: authflow demo [--config providers.yaml]

        The sign-in server with every provider pointed at the built-in sandbox identity provider (generated
        credentials, nothing leaves this machine): the same as `authflow serve --sandbox`. Open the public URL
        it prints and sign in; the page shows the verified identity and each step of the flow.
        """

    static func run(_ arguments: [String]) async -> Int32 {
        await ServeCommand.run(arguments, sandbox: true, usage: usageText)
    }
}
