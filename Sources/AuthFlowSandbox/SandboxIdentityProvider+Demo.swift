import AuthFlowJOSE
import Foundation

/// Ready-made clients with generated credentials, for `authflow sandbox` and local experiments.
extension SandboxIdentityProvider {
    /// The client ids of the demo clients.
    public static let demoClientIDs: [SandboxProvider: String] = [
        .apple: "com.example.sandbox.web", .google: "sandbox-client.apps.googleusercontent.com",
        .facebook: "100000000000001", .x: "sandbox-x-client", .microsoft: "00000000-0000-4000-8000-00000000a11c",
        .github: "Iv1.5a4db0c0ffee1234",
    ]

    /// The Apple team id of the demo client.
    public static let demoTeamID = "SANDBOXTM1"

    /// The redirect URI an `authflow serve` on its default public URL uses: `http://localhost:8080/auth/<provider>/callback`.
    public static func defaultDemoRedirectURI(for provider: SandboxProvider) -> String {
        "http://localhost:8080/auth/\(provider.rawValue)/callback"
    }

    /// Registers one client per provider with freshly generated credentials (random secrets; a P-256 key for
    /// Apple) and, when `credentialsDirectory` is given, writes them there with owner-only permissions:
    /// `google_client_secret`, `facebook_client_secret`, `x_client_secret`, `AuthKey_<key id>.p8`, plus a
    /// `providers.yaml` fragment pointing every provider at this sandbox.
    ///
    /// - Parameters:
    ///   - redirectURIs: the redirect URIs to allow per provider.
    ///   - credentialsDirectory: where to write the credentials (created owner-only); `nil` writes nothing.
    /// - Returns: the registered clients, in ``SandboxProvider`` order.
    /// - Throws: ``SandboxError/Code-swift.struct/keyFailure`` when a key cannot be generated or written, or
    ///   ``SandboxError/Code-swift.struct/invalidClient`` for unusable redirect URIs.
    @discardableResult
    public func registerDemoClients(
        redirectURIs: (SandboxProvider) -> [String] = { [SandboxIdentityProvider.defaultDemoRedirectURI(for: $0)] },
        credentialsDirectory: String? = nil
    ) throws(SandboxError) -> [SandboxDemoClient] {
        if let credentialsDirectory { try Self.makePrivateDirectory(credentialsDirectory) }
        var clients: [SandboxDemoClient] = []
        for provider in SandboxProvider.allCases {
            let clientID = Self.demoClientIDs[provider] ?? provider.rawValue
            let uris = redirectURIs(provider)
            switch provider {
            case .apple:
                let key = try generateAppleClientKey()
                let keyID = key.keyID ?? ""
                try register(
                    .apple(
                        clientID: clientID, teamID: Self.demoTeamID, keyID: keyID, publicKey: key.publicKey,
                        redirectURIs: uris))
                var file: String?
                if let credentialsDirectory {
                    let pem: String
                    do {
                        pem = try key.pkcs8PEM()
                    } catch {
                        throw SandboxError(
                            code: .keyFailure, message: "could not export the Apple key: \(error.message)")
                    }
                    file = try Self.writePrivateFile(credentialsDirectory, "AuthKey_\(keyID).p8", pem)
                }
                clients.append(
                    SandboxDemoClient(
                        provider: provider, clientID: clientID, clientSecret: nil, teamID: Self.demoTeamID,
                        keyID: keyID,
                        privateKey: key, credentialFile: file, redirectURIs: uris))
            case .google, .facebook, .x, .microsoft, .github:
                let secret = Base64URL.encode(configuration.random.bytes(24))
                let client: SandboxClient =
                    switch provider {
                    case .google: .google(clientID: clientID, clientSecret: secret, redirectURIs: uris)
                    case .facebook: .facebook(clientID: clientID, clientSecret: secret, redirectURIs: uris)
                    case .microsoft: .microsoft(clientID: clientID, clientSecret: secret, redirectURIs: uris)
                    case .github: .github(clientID: clientID, clientSecret: secret, redirectURIs: uris)
                    default: .x(clientID: clientID, clientSecret: secret, redirectURIs: uris)
                    }
                try register(client)
                let file = try credentialsDirectory.map { directory throws(SandboxError) in
                    try Self.writePrivateFile(directory, "\(provider.rawValue)_client_secret", secret)
                }
                clients.append(
                    SandboxDemoClient(
                        provider: provider, clientID: clientID, clientSecret: secret, teamID: nil, keyID: nil,
                        privateKey: nil, credentialFile: file, redirectURIs: uris))
            }
        }
        if let credentialsDirectory {
            _ = try Self.writePrivateFile(credentialsDirectory, "providers.yaml", providersYAML(for: clients))
        }
        return clients
    }

    /// A `providers:` section of providers.yaml for the demo clients, every endpoint and issuer pointing at this
    /// sandbox and every credential read from its file.
    public func providersYAML(for clients: [SandboxDemoClient]) -> String {
        var lines = [
            "# Generated by the AuthFlow sandbox identity provider at \(baseURL).",
            "# Credentials are the sandbox's own; they are worthless anywhere else.", "providers:",
        ]
        for client in clients {
            let endpoints = endpoints(for: client.provider)
            lines.append("  \(client.provider.rawValue):")
            lines.append("    type: \(client.provider.rawValue)")
            lines.append("    client_id: \"\(client.clientID)\"")
            switch client.provider {
            case .apple:
                lines.append("    team_id: \(client.teamID ?? "")")
                lines.append("    key_id: \(client.keyID ?? "")")
                if let file = client.credentialFile { lines.append("    private_key_file: \"\(file)\"") }
                lines.append("    scopes: [name, email]")
            case .google:
                if let file = client.credentialFile { lines.append("    client_secret_file: \"\(file)\"") }
                lines.append("    capabilities: { oidc: true, pkce: true }")
            case .facebook:
                if let file = client.credentialFile { lines.append("    client_secret_file: \"\(file)\"") }
                lines.append("    capabilities: { pkce: true }")
            case .x:
                if let file = client.credentialFile { lines.append("    client_secret_file: \"\(file)\"") }
                lines.append("    scopes: [users.read, tweet.read, offline.access]")
            case .microsoft:
                if let file = client.credentialFile { lines.append("    client_secret_file: \"\(file)\"") }
                lines.append("    scopes: [openid, profile, email]")
            case .github:
                if let file = client.credentialFile { lines.append("    client_secret_file: \"\(file)\"") }
                lines.append("    scopes: [read:user, user:email]")
            }
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
