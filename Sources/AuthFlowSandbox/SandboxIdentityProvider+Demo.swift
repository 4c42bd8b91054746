import AuthFlowJOSE
import Foundation

/// Ready-made clients with generated credentials, for `authflow sandbox` and local experiments.
extension SandboxIdentityProvider {
    /// The client ids of the demo clients.
    package static let demoClientIDs: [SandboxProvider: String] = [
        .apple: "com.example.sandbox.web", .google: "sandbox-client.apps.googleusercontent.com",
        .facebook: "100000000000001", .x: "sandbox-x-client", .microsoft: "00000000-0000-4000-8000-00000000a11c",
        .github: "Iv1.5a4db0c0ffee1234",
    ]

    /// The Apple team id of the demo client.
    package static let demoTeamID = "SANDBOXTM1"

    /// The redirect URI an `authflow serve` on its default public URL uses: `http://localhost:8080/auth/<provider>/callback`.
    package static func defaultDemoRedirectURI(for provider: SandboxProvider) -> String {
        "http://localhost:8080/auth/\(provider.rawValue)/callback"
    }

    /// Registers one client per provider with freshly generated credentials (random secrets; a P-256 key for
    /// Apple) and, when `credentialsDirectory` is given, writes them there with owner-only permissions:
    /// `<provider>_client_secret` for each provider with a secret, `AuthKey_<key id>.p8`, plus a
    /// `providers.yaml` fragment pointing the providers `inFragment` accepts at this sandbox.
    ///
    /// - Parameters:
    ///   - redirectURIs: the redirect URIs to allow per provider.
    ///   - credentialsDirectory: where to write the credentials (created owner-only); `nil` writes nothing.
    ///   - inFragment: which providers the `providers.yaml` fragment lists (all by default); a caller leaves out
    ///     those its provider registry has no plugin for, since a `type:` it does not know is an error there.
    /// - Returns: the registered clients, in ``SandboxProvider`` order.
    /// - Throws: `SandboxError.Code.keyFailure` when a key cannot be generated or written, or
    ///   `SandboxError.Code.invalidClient` for unusable redirect URIs.
    @discardableResult
    package func registerDemoClients(
        redirectURIs: (SandboxProvider) -> [String] = { [SandboxIdentityProvider.defaultDemoRedirectURI(for: $0)] },
        credentialsDirectory: String? = nil, inFragment: (SandboxProvider) -> Bool = { _ in true }
    ) throws(SandboxError) -> [SandboxDemoClient] {
        if let credentialsDirectory { try Self.makePrivateDirectory(credentialsDirectory) }
        var clients: [SandboxDemoClient] = []
        for provider in SandboxProvider.allCases {
            let client = try registerDemoClient(
                provider, clientID: Self.demoClientIDs[provider] ?? provider.rawValue,
                redirectURIs: redirectURIs(provider))
            guard let credentialsDirectory else {
                clients.append(client)
                continue
            }
            let file: String
            if let key = client.privateKey {
                let pem: String
                do {
                    pem = try key.pkcs8PEM()
                } catch {
                    throw SandboxError(code: .keyFailure, message: "could not export the Apple key: \(error.message)")
                }
                file = try Self.writePrivateFile(credentialsDirectory, "AuthKey_\(client.keyID ?? "").p8", pem)
            } else {
                file = try Self.writePrivateFile(
                    credentialsDirectory, "\(provider.rawValue)_client_secret", client.clientSecret ?? "")
            }
            clients.append(
                SandboxDemoClient(
                    provider: provider, clientID: client.clientID, clientSecret: client.clientSecret,
                    teamID: client.teamID, keyID: client.keyID, privateKey: client.privateKey, credentialFile: file,
                    redirectURIs: client.redirectURIs))
        }
        if let credentialsDirectory {
            _ = try Self.writePrivateFile(
                credentialsDirectory, "providers.yaml", providersYAML(for: clients.filter { inFragment($0.provider) }))
        }
        return clients
    }

    /// Registers one client of `provider` with freshly generated credentials (a random secret; for Apple a
    /// P-256 client-secret key under ``demoTeamID``) and returns them; nothing is written to disk.
    ///
    /// - Throws: `SandboxError.Code.keyFailure` when a key cannot be generated, or
    ///   `SandboxError.Code.invalidClient` for unusable redirect URIs.
    package func registerDemoClient(_ provider: SandboxProvider, clientID: String, redirectURIs: [String])
        throws(SandboxError) -> SandboxDemoClient
    {
        let generated = try provider.emulator.registerGeneratedClient(
            clientID: clientID, redirectURIs: redirectURIs, sandbox: self)
        return SandboxDemoClient(
            provider: provider, clientID: clientID, clientSecret: generated.secret, teamID: generated.teamID,
            keyID: generated.privateKey?.keyID, privateKey: generated.privateKey, credentialFile: nil,
            redirectURIs: redirectURIs)
    }

    /// A `providers:` section of providers.yaml for the demo clients, every endpoint and issuer pointing at this
    /// sandbox and every credential read from its file.
    package func providersYAML(for clients: [SandboxDemoClient]) -> String {
        var lines = [
            "# Generated by the AuthFlow sandbox identity provider at \(baseURL).",
            "# Credentials are the sandbox's own; they are worthless anywhere else.", "providers:",
        ]
        for client in clients {
            let endpoints = endpoints(for: client.provider)
            lines.append("  \(client.provider.rawValue):")
            lines.append("    type: \(client.provider.rawValue)")
            lines.append("    client_id: \"\(client.clientID)\"")
            lines += client.provider.emulator.demoYAMLLines(client, sandbox: self)
            if let issuer = endpoints.issuer { lines.append("    issuer: \"\(issuer)\"") }
            lines.append("    endpoints:")
            lines.append("      authorization: \"\(endpoints.authorization)\"")
            lines.append("      token: \"\(endpoints.token)\"")
            if let userinfo = endpoints.userinfo { lines.append("      userinfo: \"\(userinfo)\"") }
            if let jwks = endpoints.jwks { lines.append("      jwks: \"\(jwks)\"") }
            if let revocation = endpoints.revocation { lines.append("      revocation: \"\(revocation)\"") }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func makePrivateDirectory(_ path: String) throws(SandboxError) {
        do {
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw SandboxError(code: .keyFailure, message: "could not create the credentials directory '\(path)'")
        }
    }

    /// Writes `text` to `directory/name` readable by the owner only, replacing an older file.
    static func writePrivateFile(_ directory: String, _ name: String, _ text: String) throws(SandboxError) -> String {
        let path = URL(fileURLWithPath: directory).appendingPathComponent(name).path
        try? FileManager.default.removeItem(atPath: path)
        guard
            FileManager.default.createFile(
                atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600])
        else {
            throw SandboxError(code: .keyFailure, message: "could not write the credentials file '\(path)'")
        }
        return path
    }
}
