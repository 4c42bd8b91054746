import AuthFlowHTTP
import AuthFlowJOSE

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
