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

/// The Google emulator's routes and facts; the handlers are in `SandboxIdentityProvider+Google.swift`.
struct GoogleEmulator: SandboxEmulator {
    static let profile = SandboxEmulatorProfile(
        provider: .google, displayName: "Google", accessTokenLifetime: 3599, codePrefix: "4/0",
        accessTokenPrefix: "ya29.sandbox.", refreshTokenPrefix: "1//sandbox",
        paths: .init(
            authorization: "/o/oauth2/v2/auth", token: "/token", userinfo: "/v1/userinfo", jwks: "/oauth2/v3/certs",
            revocation: "/revoke", discovery: "/.well-known/openid-configuration"),
        presets: presets, idTokenHeader: ["typ": .string("JWT")], nativeScopes: ["openid", "email", "profile"],
        events: events)
    var profile: SandboxEmulatorProfile { Self.profile }

    static var presets: [SandboxIdentity] {
        [
            SandboxIdentity(
                subject: "109876543210123456789", email: "alice@example.com", givenName: "Alice",
                familyName: "Example"),
            SandboxIdentity(
                subject: "109876543210123456790", email: "bob@example.org", givenName: "Bob",
                familyName: "Unverified",
                emailVerified: false),
        ]
    }

    /// `azp`, JSON-boolean `email_verified` with `email`, the name claims with `profile`, and `groups` when the
    /// identity has some.
    func idTokenClaims(
        _ claims: [String: JSONValue], identity: SandboxIdentity, scopes: [String], authTime: Int64,
        authorizedParty: String?, random: any SecureRandom
    ) -> [String: JSONValue]? {
        var claims = claims
        claims["azp"] = .string(authorizedParty ?? claims["aud"]?.stringValue ?? "")
        if scopes.contains("email"), let email = identity.email {
            claims["email"] = .string(email)
            claims["email_verified"] = .bool(identity.emailVerified)
        }
        if !identity.groups.isEmpty { claims["groups"] = .array(identity.groups.map(JSONValue.string)) }
        if scopes.contains("profile") {
            if let name = identity.name { claims["name"] = .string(name) }
            if let given = identity.givenName { claims["given_name"] = .string(given) }
            if let family = identity.familyName { claims["family_name"] = .string(family) }
        }
        return claims
    }

    static var events: [SandboxEventSender] {
        [
            ("sessions-revoked", nil), ("tokens-revoked", nil), ("account-disabled", "hijacking"),
            ("account-enabled", nil),
        ].map { type, reason in
            SandboxEventSender(
                label: "RISC \(type)" + (reason.map { " (\($0))" } ?? ""), path: "/_sandbox/google/risc",
                receiver: "events", subjectField: "sub",
                fields: reason.map { ["type": type, "reason": $0] } ?? ["type": type])
        }
    }

    func demoYAMLLines(_ client: SandboxDemoClient, sandbox: SandboxIdentityProvider) -> [String] {
        (client.credentialFile.map { ["    client_secret_file: \"\($0)\""] } ?? [])
            + ["    capabilities: { oidc: true, pkce: true }"]
    }

    func route(_ request: HTTPServerRequest, path: String, sandbox: SandboxIdentityProvider) -> HTTPServerResponse {
        switch path {
        case "/o/oauth2/v2/auth":
            return sandbox.only("GET", request) {
                sandbox.handleAuthorize(request, provider: .google, validate: sandbox.validateGoogleAuthorization)
            }
        case "/consent": return sandbox.only("POST", request) { sandbox.handleConsent(request, provider: .google) }
        case "/token": return sandbox.only("POST", request) { sandbox.handleGoogleToken(request) }
        case "/v1/userinfo": return sandbox.only("GET", request) { sandbox.handleGoogleUserinfo(request) }
        case "/revoke": return sandbox.only("POST", request) { sandbox.handleGoogleRevoke(request) }
        case "/oauth2/v3/certs": return sandbox.only("GET", request) { sandbox.jwks(.google) }
        case "/.well-known/openid-configuration":
            return sandbox.only("GET", request) { sandbox.discovery(.google, sandbox.googleDiscovery) }
        case "/.well-known/risc-configuration":
            return sandbox.only("GET", request) { sandbox.discovery(.google, sandbox.riscConfiguration) }
        default: return SandboxIdentityProvider.notFound()
        }
    }

    func checkRegistration(_ client: SandboxClient, refuse: (String) -> SandboxError) throws(SandboxError)
        -> SandboxClient
    {
        guard let secret = client.clientSecret, !secret.isEmpty else {
            throw refuse("expected a client secret for Google, found none")
        }
        return client
    }
}

/// The Facebook emulator's routes and facts; the handlers are in `SandboxIdentityProvider+Facebook.swift`.
struct FacebookEmulator: SandboxEmulator {
    static let profile = SandboxEmulatorProfile(
        provider: .facebook, displayName: "Facebook", accessTokenLifetime: 5_183_976, codePrefix: "AQ",
        accessTokenPrefix: "EAAsandbox",
        paths: .init(
            authorization: "/v19.0/dialog/oauth", token: "/v19.0/oauth/access_token", userinfo: "/me",
            jwks: "/.well-known/oauth/openid/jwks/", discovery: "/.well-known/openid-configuration"),
        // Facebook's cancellation adds its `error_code`, `error_reason` and a fixed description.
        cancellationFields: [
            ("error", "access_denied"), ("error_code", "200"), ("error_description", "Permissions error"),
            ("error_reason", "user_denied"),
        ],
        presets: presets, nativeScopes: ["openid", "email", "public_profile"], events: events)
    var profile: SandboxEmulatorProfile { Self.profile }

    static var presets: [SandboxIdentity] {
        [
            SandboxIdentity(
                subject: "10158234567890123", email: "alice@example.com", givenName: "Alice", familyName: "Example"),
            SandboxIdentity(subject: "10158234567890124", email: nil, givenName: "Bob", familyName: "Noemail"),
        ]
    }

    /// The OIDC code flow's and Limited Login's token: `jti`, the name claims, `email` with `email`.
    func idTokenClaims(
        _ claims: [String: JSONValue], identity: SandboxIdentity, scopes: [String], authTime: Int64,
        authorizedParty: String?, random: any SecureRandom
    ) -> [String: JSONValue]? {
        var claims = claims
        claims["jti"] = .string(Hex.encode(random.bytes(16)))
        if let name = identity.name { claims["name"] = .string(name) }
        if let given = identity.givenName { claims["given_name"] = .string(given) }
        if let family = identity.familyName { claims["family_name"] = .string(family) }
        if scopes.contains("email"), let email = identity.email { claims["email"] = .string(email) }
        return claims
    }

    static var events: [SandboxEventSender] {
        [
            SandboxEventSender(
                label: "Facebook data deletion", path: "/_sandbox/facebook/data-deletion",
                receiver: "data-deletion", subjectField: "user_id"),
            SandboxEventSender(
                label: "Facebook deauthorize", path: "/_sandbox/facebook/deauthorize", receiver: "deauthorize",
                subjectField: "user_id"),
        ]
    }

    /// An app that requires `appsecret_proof`, with a generated App Secret.
    func registerGeneratedClient(clientID: String, redirectURIs: [String], sandbox: SandboxIdentityProvider)
        throws(SandboxError) -> GeneratedClient
    {
        let secret = Base64URL.encode(sandbox.configuration.random.bytes(24))
        let client = SandboxClient.facebook(clientID: clientID, clientSecret: secret, redirectURIs: redirectURIs)
        try sandbox.register(client)
        return GeneratedClient(client: client, secret: secret, privateKey: nil, teamID: nil)
    }

    func demoYAMLLines(_ client: SandboxDemoClient, sandbox: SandboxIdentityProvider) -> [String] {
        (client.credentialFile.map { ["    client_secret_file: \"\($0)\""] } ?? []) + [
            "    capabilities: { pkce: true }"
        ]
    }

    func route(_ request: HTTPServerRequest, path: String, sandbox: SandboxIdentityProvider) -> HTTPServerResponse {
        // Graph paths may carry a version segment (`/v19.0/…`); the sandbox answers any `vN.N`.
        var unversioned = Substring(path)
        let segments = path.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: true)
        if let first = segments.first, SandboxIdentityProvider.isGraphVersion(first) {
            unversioned = segments.count > 1 ? "/" + segments[1] : "/"
        }
        switch unversioned {
        case "/dialog/oauth":
            return sandbox.only("GET", request) {
                sandbox.handleAuthorize(request, provider: .facebook, validate: sandbox.validateFacebookAuthorization)
            }
        case "/consent": return sandbox.only("POST", request) { sandbox.handleConsent(request, provider: .facebook) }
        case "/oauth/access_token":
            guard request.method == "GET" else {
                var response = OAuthFailure(
                    "invalid_request",
                    "Unsupported \(clip(request.method)) request: the access_token endpoint takes GET with query parameters",
                    status: 405
                ).graphResponse()
                response.headers["Allow"] = "GET"
                return response
            }
            return sandbox.handleFacebookToken(request)
        case "/me": return sandbox.only("GET", request) { sandbox.handleFacebookMe(request) }
        case "/.well-known/oauth/openid/jwks/", "/.well-known/oauth/openid/jwks":
            return sandbox.only("GET", request) { sandbox.jwks(.facebook) }
        case "/.well-known/openid-configuration":
            return sandbox.only("GET", request) { sandbox.discovery(.facebook, sandbox.facebookDiscovery) }
        default: return SandboxIdentityProvider.notFound()
        }
    }

    func checkRegistration(_ client: SandboxClient, refuse: (String) -> SandboxError) throws(SandboxError)
        -> SandboxClient
    {
        guard let secret = client.clientSecret, !secret.isEmpty else {
            throw refuse("expected a client secret for Facebook, found none")
        }
        return client
    }

}

/// The X emulator's routes and facts; the handlers are in `SandboxIdentityProvider+X.swift`.
struct XEmulator: SandboxEmulator {
    static let profile = SandboxEmulatorProfile(
        provider: .x, displayName: "X", authorizationCodeLifetime: 30, accessTokenLifetime: 7200,
        issuesIDTokens: false, codePrefix: "", accessTokenPrefix: "",
        paths: .init(
            authorization: "/i/oauth2/authorize", token: "/2/oauth2/token", userinfo: "/2/users/me",
            revocation: "/2/oauth2/revoke"),
        issuerPath: nil, presets: presets, consentFieldsHTML: consentFieldsHTML)
    var profile: SandboxEmulatorProfile { Self.profile }

    static var presets: [SandboxIdentity] {
        [
            SandboxIdentity(
                subject: "1234567890123456789", email: "alice@example.com", givenName: "Alice",
                familyName: "Example", username: "alice_example"),
            SandboxIdentity(
                subject: "1234567890123456790", givenName: "Bob", familyName: "Poster", username: "bob_posts"),
        ]
    }

    func demoYAMLLines(_ client: SandboxDemoClient, sandbox: SandboxIdentityProvider) -> [String] {
        (client.credentialFile.map { ["    client_secret_file: \"\($0)\""] } ?? [])
            + ["    scopes: [users.read, tweet.read, offline.access]"]
    }

    func route(_ request: HTTPServerRequest, path: String, sandbox: SandboxIdentityProvider) -> HTTPServerResponse {
        switch path {
        case "/i/oauth2/authorize":
            return sandbox.only("GET", request) {
                sandbox.handleAuthorize(request, provider: .x, validate: sandbox.validateXAuthorization)
            }
        case "/consent": return sandbox.only("POST", request) { sandbox.handleConsent(request, provider: .x) }
        case "/2/oauth2/token": return sandbox.only("POST", request) { sandbox.handleXToken(request) }
        case "/2/oauth2/revoke": return sandbox.only("POST", request) { sandbox.handleXRevoke(request) }
        case "/2/users/me": return sandbox.only("GET", request) { sandbox.handleXMe(request) }
        default: return SandboxIdentityProvider.notFound()
        }
    }

    /// X: `@username` on the consent form, else one derived from the subject.
    func readConsentFields(_ form: Parameters, into identity: inout SandboxIdentity, sandbox: SandboxIdentityProvider)
        -> AuthorizationRefusal?
    {
        if let username = form["username"] {
            guard username.utf8.count <= 64,
                username.utf8.allSatisfy({ PKCEChallenge.isBase64URLByte($0) && $0 != UInt8(ascii: "-") })
            else {
                return AuthorizationRefusal(
                    "invalid_request", "the username must be at most 64 characters of [A-Za-z0-9_]")
            }
            identity.username = username
        } else {
            identity.username = "user_" + String(identity.subject.filter { $0.isLetter || $0.isNumber }.suffix(12))
        }
        return nil
    }

    static var consentFieldsHTML: String {
        "<label>Username <input type=\"text\" name=\"username\" maxlength=\"64\" autocomplete=\"off\"></label>\n"
    }
}
