import AuthFlowHTTP
import AuthFlowJOSE

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

    /// `azp`, JSON-boolean `email_verified` with `email`, the name claims with `profile`, `groups` when the
    /// identity has some, and `hd` for an account of a Workspace domain (whatever the scopes, as Google sends it).
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
        if let domain = identity.hostedDomain { claims["hd"] = .string(domain) }
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
                sandbox.handleAuthorize(
                    request, provider: .google,
                    validate: sandbox.configuration.fapi2
                        ? sandbox.redeemPushedRequest : sandbox.validateGoogleAuthorization)
            }
        case "/par" where sandbox.configuration.fapi2:
            return sandbox.only("POST", request) { sandbox.handlePushedAuthorization(request) }
        case "/consent": return sandbox.only("POST", request) { sandbox.handleConsent(request, provider: .google) }
        case "/logout":
            return sandbox.only("GET", request) { sandbox.handleFrontChannelEndSession(request, provider: .google) }
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
        if client.authMethod == .privateKeyJWT {
            guard !client.assertionKeys.isEmpty else { throw refuse("expected assertion keys, found none") }
            return client
        }
        guard let secret = client.clientSecret, !secret.isEmpty else {
            throw refuse("expected a client secret for Google, found none")
        }
        return client
    }
}
