import AuthFlowHTTP
import AuthFlowJOSE

/// The Apple emulator's routes and facts; the handlers are in `SandboxIdentityProvider+Apple.swift`.
struct AppleEmulator: SandboxEmulator {
    static let profile = SandboxEmulatorProfile(
        provider: .apple, displayName: "Apple", accessTokenLifetime: 3600, codePrefix: "c", accessTokenPrefix: "a.",
        refreshTokenPrefix: "r.",
        paths: .init(
            authorization: "/auth/authorize", token: "/auth/token", jwks: "/auth/keys", revocation: "/auth/revoke",
            discovery: "/.well-known/openid-configuration"),
        keyIDStyle: .apple, presets: presets,
        // About 10 minutes.
        idTokenLifetime: 600, nativeScopes: ["openid", "name", "email"], events: events)
    var profile: SandboxEmulatorProfile { Self.profile }

    static var presets: [SandboxIdentity] {
        [
            SandboxIdentity(
                subject: "001234.8f14e45fceea167a5a36dedd4bea2543.1021", email: "alice@example.com",
                givenName: "Alice", familyName: "Example"),
            SandboxIdentity(
                subject: "001234.c9f0f895fb98ab9159f51fd0297e236d.1022",
                email: "x7k2m9q4ab@privaterelay.appleid.com",
                givenName: "Bob", familyName: "Relay", isPrivateEmail: true),
        ]
    }

    /// `email_verified` and `is_private_email` as the strings `"true"`/`"false"` (as Apple sends them),
    /// `nonce_supported` as a JSON boolean, `auth_time`.
    func idTokenClaims(
        _ claims: [String: JSONValue], identity: SandboxIdentity, scopes: [String], authTime: Int64,
        authorizedParty: String?, random: any SecureRandom
    ) -> [String: JSONValue]? {
        var claims = claims
        claims["auth_time"] = .integer(authTime)
        claims["nonce_supported"] = .bool(true)
        if scopes.contains("email"), let email = identity.email {
            claims["email"] = .string(email)
            claims["email_verified"] = .string("true")
            claims["is_private_email"] = .string(identity.isPrivateEmail ? "true" : "false")
        }
        return claims
    }

    static var events: [SandboxEventSender] {
        ["consent-revoked", "account-delete", "email-disabled", "email-enabled"].map { type in
            SandboxEventSender(
                label: "Apple \(type)", path: "/_sandbox/apple/notify", receiver: "notifications",
                subjectField: "sub", fields: ["type": type])
        }
    }

    /// A Services ID under the demo team, with a generated P-256 client-secret key.
    func registerGeneratedClient(clientID: String, redirectURIs: [String], sandbox: SandboxIdentityProvider)
        throws(SandboxError) -> GeneratedClient
    {
        let key = try sandbox.generateAppleClientKey()
        let client = SandboxClient.apple(
            clientID: clientID, teamID: SandboxIdentityProvider.demoTeamID, keyID: key.keyID ?? "",
            publicKey: key.publicKey, redirectURIs: redirectURIs)
        try sandbox.register(client)
        return GeneratedClient(client: client, secret: nil, privateKey: key, teamID: SandboxIdentityProvider.demoTeamID)
    }

    func demoYAMLLines(_ client: SandboxDemoClient, sandbox: SandboxIdentityProvider) -> [String] {
        ["    team_id: \(client.teamID ?? "")", "    key_id: \(client.keyID ?? "")"]
            + (client.credentialFile.map { ["    private_key_file: \"\($0)\""] } ?? []) + ["    scopes: [name, email]"]
    }

    func route(_ request: HTTPServerRequest, path: String, sandbox: SandboxIdentityProvider) -> HTTPServerResponse {
        switch path {
        case "/auth/authorize":
            return sandbox.only("GET", request) {
                sandbox.handleAuthorize(request, provider: .apple, validate: sandbox.validateAppleAuthorization)
            }
        case "/consent": return sandbox.only("POST", request) { sandbox.handleConsent(request, provider: .apple) }
        case "/auth/token": return sandbox.only("POST", request) { sandbox.handleAppleToken(request) }
        case "/auth/revoke": return sandbox.only("POST", request) { sandbox.handleAppleRevoke(request) }
        case "/auth/keys": return sandbox.only("GET", request) { sandbox.jwks(.apple) }
        case "/.well-known/openid-configuration":
            return sandbox.only("GET", request) { sandbox.discovery(.apple, sandbox.appleDiscovery) }
        default: return SandboxIdentityProvider.notFound()
        }
    }

    func checkRegistration(_ client: SandboxClient, refuse: (String) -> SandboxError) throws(SandboxError)
        -> SandboxClient
    {
        guard let apple = client.apple, !apple.teamID.isEmpty, !apple.keyID.isEmpty else {
            throw refuse("expected Apple credentials with a team id and key id, found none")
        }
        guard apple.publicKey.keyType == "EC" else {
            throw refuse(
                "expected the ES256 (EC P-256) public key of the client-secret signing key, found a \(apple.publicKey.keyType) key"
            )
        }
        // Pin the registered key id and ES256 on the key: the client secret's `kid` must name exactly it,
        // and a P-256 key is the only one that fits ES256.
        do {
            let pinned = try apple.publicKey.publicKey.with(keyID: apple.keyID, algorithm: .es256)
            return SandboxClient(
                provider: .apple, clientID: client.clientID, clientSecret: nil, redirectURIs: client.redirectURIs,
                apple: SandboxClient.AppleCredentials(teamID: apple.teamID, keyID: apple.keyID, publicKey: pinned))
        } catch {
            throw refuse("expected an EC P-256 key for ES256: \(error.message)")
        }
    }
}
