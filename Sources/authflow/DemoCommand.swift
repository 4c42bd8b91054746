/// `authflow demo [--config F]`: `serve --sandbox` on ./providers.yaml.
struct DemoCommand: Command {
    static let name = "demo"

    static let usage = """
        usage: authflow demo [--config providers.yaml]

        The sign-in server with every provider pointed at the built-in sandbox identity provider (generated
        credentials, nothing leaves this machine): the same as `authflow serve --sandbox`. Open the public URL
        it prints and sign in; the page shows the verified identity and each step of the flow.
        """

    var serve: ServeCommand

    static func parse(_ arguments: [String]) throws(ValidationError) -> DemoCommand? {
        let parsed = try CommandIO.parse(arguments, options: ["config"])
        if parsed.help { return nil }
        try parsed.requireNoPositional()
        return DemoCommand(serve: ServeCommand(path: parsed.last("config") ?? "providers.yaml", sandbox: true))
    }

    func validate() throws(ValidationError) { try serve.validate() }

    func run() async -> ExitCode { await serve.run() }
}
