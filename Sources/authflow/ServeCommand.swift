import AuthFlow
import AuthFlowDeployment
import AuthFlowProviders
import AuthFlowSandbox
import Foundation

/// `authflow serve [--config F] [--sandbox]`: the sign-in server, until SIGINT or SIGTERM.
enum ServeCommand {
    static let usageText = """
        usage: authflow serve [--config providers.yaml] [--sandbox]

          --config FILE   the configuration (default providers.yaml)
          --sandbox       point every provider at the built-in sandbox identity provider, run in-process on
                          127.0.0.1 (sandbox.listen or a free port), with generated credentials; serves the
                          demo page at /

        Prints "authflow: app listening at http://HOST:PORT (public URL URL)" (and, with --sandbox,
        "authflow: sandbox listening at http://127.0.0.1:PORT") when ready, then serves until interrupted
        and stops gracefully (exit 0). A bad configuration or a busy port exits 1.
        """

    static func run(_ arguments: [String]) async -> Int32 {
        var sandbox = false
        var rest: [String] = []
        for argument in arguments {
            if argument == "--sandbox" { sandbox = true } else { rest.append(argument) }
        }
        return await run(rest, sandbox: sandbox, usage: usageText)
    }

    /// Runs the server; `demo` calls this with `sandbox: true`.
    static func run(_ arguments: [String], sandbox: Bool, usage: String) async -> Int32 {
        let options: CommandIO.Options
        do throws(CommandIO.UsageProblem) {
            options = try CommandIO.parse(arguments, known: ["config"])
            if options.help { return CommandIO.usage(usage, code: CommandIO.success) }
            guard options.positional.isEmpty else {
                throw CommandIO.UsageProblem(message: "unexpected argument '\(options.positional[0])'")
            }
        } catch {
            return CommandIO.usage(usage, code: CommandIO.usageError, problem: error.message)
        }
        let path = options.last("config") ?? "providers.yaml"
        let loader = ConfigurationLoader(
            environment: ProcessInfo.processInfo.environment, mode: sandbox ? .sandbox : .normal)
        let configuration: Configuration
        do throws(ConfigurationError) {
            configuration = try loader.load(path: path)
        } catch {
            CommandIO.err(error.description)
            return CommandIO.invalid
        }

        // Signals are caught from here on, so a SIGTERM right after the ready line still stops gracefully.
        let signals = TerminationSignals()
        let logger = StandardErrorLogger(minimumLevel: .info)
        let service: SignInService
        do {
            service = try await SignInService.start(
                configuration: configuration, sandboxMode: sandbox, registry: .standard, logger: logger)
        } catch {
            CommandIO.err("authflow: cannot start the server: \(error)")
            return CommandIO.invalid
        }
        CommandIO.out("authflow: app listening at \(service.listenURL) (public URL \(service.publicURL))")
        if let sandboxProvider = service.sandbox {
            CommandIO.out("authflow: sandbox listening at \(sandboxProvider.baseURL)")
            CommandIO.err("authflow: open \(service.publicURL)/ in a browser to sign in with the sandbox; Ctrl-C stops")
        }
        await signals.wait()
        CommandIO.err("authflow: stopping")
        await service.stop()
        return CommandIO.success
    }
}
