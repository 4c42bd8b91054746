import AuthFlowHTTP
import AuthFlowJOSE
import Foundation
import Synchronization

/// The GitHub emulator (OAuth 2.0 only, no OpenID Connect), under `/github`: `/login/oauth/authorize`,
/// `/login/oauth/access_token`, the REST API's `/user` and `/user/emails`, and
/// `DELETE /applications/{client_id}/grant` and `…/token`.
///
/// Facts (docs/providers.md, "GitHub"): a form-encoded token answer unless `Accept: application/json`, errors with
/// HTTP 200, comma-separated scopes, the client secret in the body, PKCE `S256` only and optional, the RFC 9207
/// `iss` on the callback, a numeric user `id`, a public `email` that is often `null`, `/user/emails` with
/// `primary` and `verified`, a required `User-Agent`, GitHub App user tokens (8 hours, rotating refresh
/// tokens), and grant revocation with HTTP Basic.
struct GitHubEmulator: SandboxEmulator {
    /// An OAuth app token does not expire; the sandbox gives it ten years.
    static let oauthAppTokenLifetime: Int64 = 10 * 365 * 86_400
    /// GitHub App user tokens: 8 hours; their refresh tokens about 6 months.
    static let expiringTokenLifetime: Int64 = 28_800
    static let refreshTokenLifetime: Int64 = 15_811_200

    static let profile = SandboxEmulatorProfile(
        provider: .github, displayName: "GitHub", authorizationCodeLifetime: 600,
        accessTokenLifetime: oauthAppTokenLifetime, issuesIDTokens: false, codePrefix: "", accessTokenPrefix: "gho_",
        refreshTokenPrefix: "ghr_",
        paths: .init(
            authorization: "/login/oauth/authorize", token: "/login/oauth/access_token", userinfo: "/user",
            revocation: "/applications/{client_id}/grant"),
        // `<root>/login/oauth`, the `iss` of GitHub's authorization responses (RFC 9207).
        issuerPath: "/login/oauth", sendsResponseIssuer: true, presets: presets, consentFieldsHTML: consentFieldsHTML)
    var profile: SandboxEmulatorProfile { Self.profile }

    static var presets: [SandboxIdentity] {
        [
            SandboxIdentity(
                subject: "583231", email: "alice@example.com", givenName: "Alice", familyName: "Example",
                username: "alice-example", emailIsPublic: true),
            SandboxIdentity(
                subject: "9919", email: "bob@users.example", givenName: "Bob", familyName: "Private",
                username: "bob-private", emailVerified: false,
                additionalEmails: [SandboxIdentity.AdditionalEmail(address: "bob@work.example", verified: true)]),
        ]
    }

    func route(_ request: HTTPServerRequest, path: String, sandbox: SandboxIdentityProvider) -> HTTPServerResponse {
        switch path {
        case "/login/oauth/authorize":
            return sandbox.only("GET", request) {
                sandbox.handleAuthorize(request, provider: .github, validate: sandbox.validateGitHubAuthorization)
            }
        case "/consent": return sandbox.only("POST", request) { sandbox.handleConsent(request, provider: .github) }
        case "/login/oauth/access_token":
            return sandbox.only("POST", request) { sandbox.handleGitHubToken(request) }
        case "/user": return sandbox.only("GET", request) { sandbox.handleGitHubUser(request) }
        case "/user/emails": return sandbox.only("GET", request) { sandbox.handleGitHubEmails(request) }
        case "/user/orgs", "/user/teams":
            return sandbox.only("GET", request) {
                sandbox.handleGitHubMemberships(request, teams: path == "/user/teams")
            }
        default:
            let segments = path.split(separator: "/", omittingEmptySubsequences: false)
            // "", "applications", client_id, "grant" | "token"
            if segments.count == 4, segments[1] == "applications", !segments[2].isEmpty,
                segments[3] == "grant" || segments[3] == "token"
            {
                return sandbox.only("DELETE", request) {
                    sandbox.handleGitHubRevocation(
                        request, clientID: String(segments[2]), wholeGrant: segments[3] == "grant")
                }
            }
            return SandboxIdentityProvider.notFound()
        }
    }

    func demoYAMLLines(_ client: SandboxDemoClient, sandbox: SandboxIdentityProvider) -> [String] {
        (client.credentialFile.map { ["    client_secret_file: \"\($0)\""] } ?? [])
            + ["    scopes: [read:user, user:email]"]
    }

    func checkRegistration(_ client: SandboxClient, refuse: (String) -> SandboxError) throws(SandboxError)
        -> SandboxClient
    {
        guard let secret = client.clientSecret, !secret.isEmpty else {
            throw refuse("expected a client secret for GitHub (it has no public clients), found none")
        }
        return client
    }

    /// GitHub's user ids are numbers: a typed subject must be one. `username` is the login.
    func readConsentFields(_ form: Parameters, into identity: inout SandboxIdentity, sandbox: SandboxIdentityProvider)
        -> AuthorizationRefusal?
    {
        guard let id = Int64(identity.subject), id > 0 else {
            return AuthorizationRefusal(
                "invalid_request", "a GitHub user id is a positive number, found '\(clip(identity.subject))'")
        }
        if let login = form["username"] {
            let allowed = login.utf8.allSatisfy { PKCEChallenge.isBase64URLByte($0) && $0 != UInt8(ascii: "_") }
            guard allowed, login.utf8.count <= 39, !login.hasPrefix("-") else {
                return AuthorizationRefusal("invalid_request", "the login must be at most 39 of [A-Za-z0-9-]")
            }
            identity.username = login
        } else {
            identity.username = "user-\(id)"
        }
        identity.emailIsPublic = form["public_email"] == "true"
        return nil
    }

    static var consentFieldsHTML: String {
        """
        <label>Login <input type="text" name="username" maxlength="39" autocomplete="off"></label>
        <label><input type="checkbox" name="public_email" value="true"> email is public on the profile</label>

        """
    }

}
