import AuthFlow
import AuthFlowHTTP
import AuthFlowHTTPServer
import AuthFlowProviders
import AuthFlowSandbox
import Foundation

/// `authflow sandbox`: runs only the sandbox identity provider (one emulator per ``SandboxProvider``)
/// with generated demo clients, until SIGINT or SIGTERM.
struct SandboxCommand: Command {
    static let name = "sandbox"
    static let defaultListen = "127.0.0.1:0"

    static let usage = """
        usage: authflow sandbox [--listen HOST:PORT] [--redirect-uri URI]... [--credentials-dir DIR]
                                [--max-pending N] [--dpop]

          --listen HOST:PORT     where to listen (default 127.0.0.1:0: loopback, any free port)
          --redirect-uri URI     a redirect URI the demo clients accept; {provider} is replaced by apple,
                                 google, facebook, x, microsoft or github (repeatable; default
                                 http://localhost:8080/auth/{provider}/callback)
          --credentials-dir DIR  where to write the demo clients' generated secrets and Apple key, owner-only
                                 (default: a fresh temporary directory, removed on exit)
          --max-pending N        consent tickets and authorization codes remembered at once, each; past it,
                                 sign-ins get 503 temporarily_unavailable (default 10000; raise it only for
                                 load tests: a code is remembered for an hour after it is issued)
          --dpop                 the OpenID issuer (/google) also binds tokens to a DPoP key (RFC 9449)
                                 when a token request carries a proof, with server nonces; userinfo then
                                 takes a bound token only with a proof (without it, proofs are ignored)

        Prints the base URL, every provider's endpoints and the demo clients (secrets masked; the full
        values are in the credential files), then serves until interrupted (Ctrl-C) and stops gracefully.
        """

    var listen: String
    var redirectURIs: [String]
    var credentialsDirectory: String?
    var maximumPendingEntries = SandboxConfiguration.defaultMaximumPendingEntries
    /// `--dpop`: ``SandboxConfiguration/dpop``.
    var dpop = false

    /// The largest `--max-pending` accepted: the sandbox's memory stays bounded even when raised.
    static let maximumPendingLimit = 10_000_000

    static func parse(_ arguments: [String]) throws(ValidationError) -> SandboxCommand? {
        let parsed = try CommandIO.parse(
            arguments, options: ["listen", "redirect-uri", "credentials-dir", "max-pending"], flags: ["dpop"])
        if parsed.help { return nil }
        try parsed.requireNoPositional()
        var command = SandboxCommand(
            listen: parsed.last("listen") ?? defaultListen, redirectURIs: parsed.all("redirect-uri"),
            credentialsDirectory: parsed.last("credentials-dir"), dpop: parsed.flags.contains("dpop"))
        if let text = parsed.last("max-pending") {
            guard let value = Int(text), (1...maximumPendingLimit).contains(value) else {
                throw ValidationError(
                    "--max-pending", expected: "a whole number from 1 to \(maximumPendingLimit)",
                    found: ValidationError.quoted(text))
            }
            command.maximumPendingEntries = value
        }
        return command
    }

    func validate() throws(ValidationError) {
        _ = try Self.parseListen(listen)
        for uri in redirectURIs where URL(string: uri)?.scheme == nil {
            throw ValidationError("--redirect-uri", expected: "an absolute URL", found: ValidationError.quoted(uri))
        }
        if let credentialsDirectory {
            try CommandIO.requireNonEmpty(credentialsDirectory, option: "credentials-dir", expected: "a DIR")
        }
    }

    func run() async -> ExitCode {
        let address = (try? Self.parseListen(listen)) ?? (host: "127.0.0.1", port: 0)  // checked by validate()
        // Signals are caught from here on, so a SIGTERM right after the summary still stops gracefully.
        let signals = TerminationSignals()
        var configuration = SandboxConfiguration(
            host: address.host, port: address.port, maximumPendingEntries: maximumPendingEntries)
        configuration.dpop = dpop
        let sandbox = SandboxIdentityProvider(configuration: configuration)
        let baseURL: String
        do {
            baseURL = try sandbox.start()
        } catch {
            CommandIO.err("authflow: cannot start the sandbox: \(error)")
            return .invalid
        }
        let ownsDirectory = credentialsDirectory == nil
        let directory =
            credentialsDirectory
            ?? FileManager.default.temporaryDirectory.appendingPathComponent(
                "authflow-sandbox-\(UUID().uuidString.prefix(8).lowercased())"
            ).path
        defer { if ownsDirectory { try? FileManager.default.removeItem(atPath: directory) } }
        let redirectTemplates = redirectURIs
        let clients: [SandboxDemoClient]
        do {
            clients = try sandbox.registerDemoClients(
                redirectURIs: { provider in
                    redirectTemplates.isEmpty
                        ? [SandboxIdentityProvider.defaultDemoRedirectURI(for: provider)]
                        : redirectTemplates.map { $0.replacingOccurrences(of: "{provider}", with: provider.rawValue) }
                }, credentialsDirectory: directory,
                // The fragment lists only the providers this build has a plugin for: it must load as it is.
                inFragment: { ProviderRegistry.standard.plugin(forType: $0.rawValue) != nil })
        } catch {
            CommandIO.err("authflow: cannot set up the demo clients: \(error)")
            await sandbox.stop()
            return .invalid
        }
        CommandIO.out(
            Self.summary(
                sandbox: sandbox, baseURL: baseURL, clients: clients, directory: directory,
                temporary: ownsDirectory))
        await signals.wait()
        CommandIO.err("authflow: stopping the sandbox")
        await sandbox.stop()
        return .success
    }

    /// `HOST:PORT`, `[IPv6]:PORT` or `:PORT`; the port 0–65535 (0 = any free port).
    static func parseListen(_ text: String) throws(ValidationError) -> (host: String, port: Int) {
        let problem = ValidationError(
            "--listen", expected: "HOST:PORT (e.g. 127.0.0.1:0) with a port from 0 to 65535",
            found: ValidationError.quoted(text))
        guard let colon = text.lastIndex(of: ":") else { throw problem }
        var host = String(text[..<colon])
        guard let port = Int(text[text.index(after: colon)...]), (0...65_535).contains(port) else { throw problem }
        if host.hasPrefix("[") {
            guard host.hasSuffix("]"), host.count > 2 else { throw problem }
            host = String(host.dropFirst().dropLast())
        } else if host.contains(":") {
            throw problem
        }
        return (host.isEmpty ? "127.0.0.1" : host, port)
    }

    static func summary(
        sandbox: SandboxIdentityProvider, baseURL: String, clients: [SandboxDemoClient], directory: String,
        temporary: Bool
    ) -> String {
        var lines = ["AuthFlow sandbox identity provider listening on \(baseURL)", ""]
        func row(_ label: String, _ value: String?) {
            if let value { lines.append("    " + label.padding(toLength: 15, withPad: " ", startingAt: 0) + value) }
        }
        for provider in SandboxProvider.allCases {
            let endpoints = sandbox.endpoints(for: provider)
            lines.append("\(provider.displayName) (\(baseURL)\(provider.pathPrefix))")
            row("issuer", endpoints.issuer)
            row("authorization", endpoints.authorization)
            row("token", endpoints.token)
            row("userinfo", endpoints.userinfo)
            row("jwks", endpoints.jwks)
            row("revocation", endpoints.revocation)
            row("discovery", endpoints.discovery)
            row("end_session", endpoints.endSession)
            if let client = clients.first(where: { $0.provider == provider }) {
                row("client_id", client.clientID)
                row("team_id", client.teamID)
                row("key_id", client.keyID)
                row("client_secret", client.maskedSecret.map { "\($0) (full value in the file below)" })
                row(client.privateKey == nil ? "secret file" : "key file (.p8)", client.credentialFile)
                row("redirect_uri", client.redirectURIs.joined(separator: ", "))
            }
            lines.append("")
        }
        lines.append("providers.yaml fragment for these clients: \(directory)/providers.yaml")
        if temporary { lines.append("(the credentials directory is temporary and removed on exit)") }
        lines.append("Apple notifications: POST \(baseURL)/_sandbox/apple/notify with type, sub, client_id, to")
        lines.append("Press Ctrl-C to stop.")
        return lines.joined(separator: "\n")
    }
}
