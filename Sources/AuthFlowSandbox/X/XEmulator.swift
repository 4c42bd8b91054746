import AuthFlowHTTP
import AuthFlowJOSE

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
