import AuthFlow
import AuthFlowDemo
import AuthFlowDeployment
import AuthFlowProviders
import AuthFlowSandbox
import Foundation

/// `authflow serve [--config F] [--sandbox]`: the sign-in server, until SIGINT or SIGTERM.
struct ServeCommand: Command {
    static let name = "serve"

    static let usage = """
        usage: authflow serve [--config providers.yaml] [--sandbox]

          --config FILE   the configuration (default providers.yaml)
          --sandbox       point every provider at the built-in sandbox identity provider, run in-process on
                          127.0.0.1 (sandbox.listen or a free port), with generated credentials; serves the
                          demo page at /

        Prints "authflow: app listening at http://HOST:PORT (public URL URL)" (with server.metrics_listen,
        "authflow: metrics listening at http://HOST:PORT/metrics"; with --sandbox,
        "authflow: sandbox listening at http://127.0.0.1:PORT") when ready, then serves until interrupted
        and stops gracefully (exit 0). A bad configuration or a busy port exits 1. With server.log_format:
        json these lines are JSON objects too ({"event": "app listening", "url": …, "public_url": …}).

        With --sandbox the configured store (store.postgres_url, store.redis_url) and server.secret are never
        used: the run is throwaway, and says so on start when the configuration names them.
        """

    var path: String
    var sandbox: Bool

    static func parse(_ arguments: [String]) throws(ValidationError) -> ServeCommand? {
        let parsed = try CommandIO.parse(arguments, options: ["config"], flags: ["sandbox"])
        if parsed.help { return nil }
        try parsed.requireNoPositional()
        return ServeCommand(path: parsed.last("config") ?? "providers.yaml", sandbox: parsed.flags.contains("sandbox"))
    }

    func validate() throws(ValidationError) {
        try CommandIO.requireNonEmpty(path, option: "config", expected: "a FILE")
    }

    /// What `--sandbox` does with the configured store and secret, and why two sandbox instances cannot share
    /// sign-ins.
    static func sandboxNote(ignored: [String]) -> String {
        let keys =
            ignored.count == 1
            ? ignored[0] : ignored.dropLast().joined(separator: ", ") + " and " + (ignored.last ?? "")
        return "sandbox mode ignores \(keys): sign-ins go to a throwaway store under a generated secret, "
            + "never to the configured store. Two serve --sandbox instances cannot share sign-ins: each has its "
            + "own sandbox, secret and store, so neither opens the other's flow cookies or sessions. To try "
            + "several instances, run one authflow sandbox as the provider and plain authflow serve instances "
            + "(docs/deployment.md, \"Try it on one machine\")."
    }

    /// Runs the server until SIGINT or SIGTERM; `demo` runs this with `sandbox` set.
    func run() async -> ExitCode {
        let loader = ConfigurationLoader(
            environment: ProcessInfo.processInfo.environment, mode: sandbox ? .sandbox : .normal)
        let configuration: Configuration
        do throws(ConfigurationError) {
            configuration = try loader.load(path: path)
        } catch {
            CommandIO.err(error.description)
            return .invalid
        }

        // Signals are caught from here on, so a SIGTERM right after the ready line still stops gracefully.
        let signals = TerminationSignals()
        let json = configuration.server?.logFormat == .json
        let logger: any ServerLogger =
            json ? JSONLineLogger(minimumLevel: .info) : StandardErrorLogger(minimumLevel: .info)
        // With JSON logs every line is JSON: the ready lines on standard output too.
        let ready = Self.readyLines(json: json)
        // Sandbox mode generates every credential; otherwise a secret that others may read is worth a word.
        if !sandbox {
            for warning in configuration.secretFilePermissionWarnings() {
                logger.log(.warning, warning, metadata: [:])
            }
        }
        let service: SignInService
        do {
            service = try await SignInService.start(
                configuration: configuration, sandboxMode: sandbox, registry: .standard, logger: logger)
        } catch {
            if json {
                logger.log(.error, "cannot start the server", metadata: ["error": "\(error)"])
            } else {
                CommandIO.err("authflow: cannot start the server: \(error)")
            }
            return .invalid
        }
        ready("app", service.listenURL, ["public_url": service.publicURL], "(public URL \(service.publicURL))")
        if let metricsURL = service.metricsURL { ready("metrics", metricsURL + "/metrics", [:], nil) }
        // With JSON logs, standard error holds only JSON lines, so the notes go through the logger too.
        if let sandboxProvider = service.sandbox {
            ready("sandbox", sandboxProvider.baseURL, [:], nil)
            let ignored = SandboxDeployment.ignoredSettings(of: configuration)
            if !ignored.isEmpty {
                let note = Self.sandboxNote(ignored: ignored)
                if json { logger.log(.warning, note, metadata: [:]) } else { CommandIO.err("authflow: " + note) }
            }
            if json {
                logger.log(.info, "sandbox ready", metadata: ["url": service.publicURL + "/"])
            } else {
                CommandIO.err(
                    "authflow: open \(service.publicURL)/ in a browser to sign in with the sandbox; Ctrl-C stops")
            }
        }
        let reopening = Self.reopenOnHangUp(service)
        await signals.wait()
        reopening?.cancel()
        if json { logger.log(.info, "stopping", metadata: [:]) } else { CommandIO.err("authflow: stopping") }
        await service.stop()
        return .success
    }

    /// With `server.audit_log`, SIGHUP reopens the audit log file (log rotation renamed it; the next events go to
    /// a new file at the configured name). Without an audit log SIGHUP keeps its default action.
    static func reopenOnHangUp(_ service: SignInService) -> (any DispatchSourceSignal)? {
        guard service.audit != nil else { return nil }
        signal(SIGHUP, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
        source.setEventHandler { service.reopenAuditLog() }
        source.resume()
        return source
    }

    /// Writes one ready line on standard output: `authflow: NAME listening at URL [TAIL]`, or with JSON logs
    /// `{"event": "NAME listening", "url": URL, …}` in the JSON log line format.
    static func readyLines(json: Bool) -> (String, String, [String: String], String?) -> Void {
        let lines = JSONLineLogger(minimumLevel: .info) { line in FileHandle.standardOutput.write(Data(line.utf8)) }
        return { name, url, fields, tail in
            if json {
                var metadata = fields
                metadata["url"] = url
                lines.log(.info, "\(name) listening", metadata: metadata)
            } else {
                CommandIO.out("authflow: \(name) listening at \(url)" + (tail.map { " " + $0 } ?? ""))
            }
        }
    }
}
