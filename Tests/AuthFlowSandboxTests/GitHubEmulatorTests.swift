import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowSandbox
import Foundation
import Testing

@Suite("GitHub emulator")
struct GitHubEmulatorTests {
    typealias H = SandboxHarness
    static let appClientID = "Iv23liGitHubApp0001"
    static let api: HTTPHeaders = ["User-Agent": "authflow-tests", "Accept": "application/vnd.github+json"]

    static func code(
        _ harness: H, query: [(String, String)]? = nil, identity: [(String, String)] = [("identity", "preset-0")]
    ) async throws -> (code: String, fields: [String: String]) {
        try await harness.code(.github, query: query, identity: identity)
    }

    static func exchange(
        _ harness: H, code: String, clientID: String = H.githubClientID, secret: String = H.secret,
        extra: [(String, String)] = [("redirect_uri", H.redirectURI(.github))], json: Bool = true,
        headers: HTTPHeaders = [:]
    ) async throws -> Reply {
        var allHeaders = headers
        if json { allHeaders["Accept"] = "application/json" }
        return try await harness.post(
            H.tokenPath(.github),
            form: [("client_id", clientID), ("client_secret", secret), ("code", code)] + extra, headers: allHeaders)
    }

    static func token(_ harness: H, identity: [(String, String)] = [("identity", "preset-0")]) async throws -> String {
        let (code, _) = try await code(harness, identity: identity)
        return try #require(try await exchange(harness, code: code).json()["access_token"]?.stringValue)
    }

    static func bearer(_ token: String, scheme: String = "Bearer") -> HTTPHeaders {
        var headers = api
        headers["Authorization"] = "\(scheme) \(token)"
        return headers
    }

    // MARK: - Authorization

    @Test(arguments: Transport.available) func callbackCarriesCodeStateAndIssuer(transport: Transport) async throws {
        let harness = try H(transport: transport)
        let (code, fields) = try await Self.code(harness)
        #expect(!code.isEmpty)
        #expect(fields["state"] == "st-123")
        #expect(fields["iss"] == harness.sandbox.baseURL + "/github/login/oauth")
        #expect(harness.sandbox.endpoints(for: .github).issuer == fields["iss"])
        #expect(harness.sandbox.endpoints(for: .github).userinfo == harness.sandbox.baseURL + "/github/user")
        let cancelled = H.callbackFields(
            try await harness.authorize(.github, query: H.authorizationQuery(.github), decision: "cancel"))
        #expect(cancelled["error"] == "access_denied")
        #expect(cancelled["iss"] == fields["iss"])
    }

    @Test func redirectURIIsOptionalButExactWhenSent() async throws {
        let harness = try H()
        let withoutRedirect = H.authorizationQuery(.github).filter { $0.0 != "redirect_uri" }
        let reply = try await harness.authorize(.github, query: withoutRedirect)
        #expect(reply.location?.hasPrefix(H.redirectURI(.github) + "?") == true)
        let code = try #require(H.callbackFields(reply)["code"])
        #expect(try await Self.exchange(harness, code: code, extra: []).status == 200)

        let mismatched = H.authorizationQuery(.github).map {
            $0.0 == "redirect_uri" ? ($0.0, "https://evil.example/callback") : $0
        }
        let page = try await harness.get(H.authorizePath(.github), mismatched)
        #expect(page.status == 400)
        #expect(page.text.contains("redirect_uri_mismatch"))
        #expect(page.location == nil)

        let unknown = try await harness.get(H.authorizePath(.github), [("client_id", "nobody")])
        #expect(unknown.status == 404)
    }

    @Test func pkceIsS256Only() async throws {
        let harness = try H()
        let verifier = String(repeating: "p", count: 43)
        let plain = H.authorizationQuery(.github) + [("code_challenge", verifier), ("code_challenge_method", "plain")]
        #expect(try await harness.get(H.authorizePath(.github), plain).status == 400)
        let noMethod = H.authorizationQuery(.github) + [("code_challenge", verifier)]
        #expect(try await harness.get(H.authorizePath(.github), noMethod).status == 400)

        let pkce = PKCE.generate(random: CountingRandom(seed: 41))
        let query = H.authorizationQuery(.github, pkce: pkce)
        let good = try await Self.exchange(
            harness, code: try await Self.code(harness, query: query).code,
            extra: [("code_verifier", pkce.verifier)])
        #expect(good.status == 200)
        #expect(try good.json()["access_token"] != nil)
        let wrong = try await Self.exchange(
            harness, code: try await Self.code(harness, query: query).code,
            extra: [("code_verifier", String(repeating: "w", count: 43))])
        #expect(wrong.oauthError == "bad_verification_code")
        let missing = try await Self.exchange(harness, code: try await Self.code(harness, query: query).code)
        #expect(missing.oauthError == "bad_verification_code")
    }

    @Test func typedIdentityNeedsANumericID() async throws {
        let harness = try H()
        let reply = try await harness.authorize(
            .github, query: H.authorizationQuery(.github), identity: [("identity", "custom"), ("subject", "alice")])
        #expect(reply.status == 400)
        let (code, _) = try await Self.code(
            harness,
            identity: [
                ("identity", "custom"), ("subject", "4242"), ("username", "typed-user"), ("email", "t@example.com"),
                ("public_email", "true"), ("email_verified", "true"),
            ])
        let token = try #require(try await Self.exchange(harness, code: code).json()["access_token"]?.stringValue)
        let user = try await harness.get("/github/user", headers: Self.bearer(token)).json()
        #expect(user["id"] == .integer(4242))
        #expect(user["login"] == .string("typed-user"))
        #expect(user["email"] == .string("t@example.com"))
    }

    // MARK: - Token endpoint

    @Test(arguments: Transport.available) func tokenAnswerIsFormEncodedUnlessJSONIsAccepted(transport: Transport)
        async throws
    {
        let harness = try H(transport: transport)
        let form = try await Self.exchange(harness, code: try await Self.code(harness).code, json: false)
        #expect(form.status == 200)
        #expect(form.headers["Content-Type"]?.hasPrefix("application/x-www-form-urlencoded") == true)
        let fields = Dictionary(FormURLEncoding.decode(form.text), uniquingKeysWith: { $1 })
        #expect(fields["access_token"]?.hasPrefix("gho_") == true)
        #expect(fields["scope"] == "read:user,user:email")
        #expect(fields["token_type"] == "bearer")
        #expect(fields["refresh_token"] == nil)

        let json = try await Self.exchange(harness, code: try await Self.code(harness).code)
        #expect(json.headers["Content-Type"]?.hasPrefix("application/json") == true)
        #expect(try json.json()["scope"] == .string("read:user,user:email"))
        #expect(try json.json()["expires_in"] == nil)
    }

    @Test func aJSONBodyIsAcceptedToo() async throws {
        let harness = try H()
        let code = try await Self.code(harness).code
        let body: JSONValue = .object([
            "client_id": .string(H.githubClientID), "client_secret": .string(H.secret), "code": .string(code),
        ])
        let reply = try await harness.send(
            "POST", H.tokenPath(.github), headers: ["Content-Type": "application/json", "Accept": "application/json"],
            body: Array(body.serialized().utf8))
        #expect(try reply.json()["access_token"] != nil, "\(reply.text)")
    }

    @Test(arguments: Transport.available) func refusalsComeWithStatus200(transport: Transport) async throws {
        let harness = try H(transport: transport)
        let badCode = try await Self.exchange(harness, code: "not-a-code")
        #expect(badCode.status == 200)
        #expect(badCode.oauthError == "bad_verification_code")
        #expect(try badCode.json()["error_uri"] != nil)

        let wrongSecret = try await Self.exchange(harness, code: try await Self.code(harness).code, secret: "wrong")
        #expect(wrongSecret.status == 200)
        #expect(wrongSecret.oauthError == "incorrect_client_credentials")

        let basic = try await Self.exchange(
            harness, code: try await Self.code(harness).code, headers: H.basic(H.githubClientID, H.secret))
        #expect(basic.oauthError == "incorrect_client_credentials")

        let redirect = try await Self.exchange(
            harness, code: try await Self.code(harness).code, extra: [("redirect_uri", "https://app.example/other")])
        #expect(redirect.oauthError == "redirect_uri_mismatch")

        let code = try await Self.code(harness).code
        #expect(try await Self.exchange(harness, code: code).status == 200)
        let replay = try await Self.exchange(harness, code: code)
        #expect(replay.oauthError == "bad_verification_code")

        let form = try await Self.exchange(harness, code: "not-a-code", json: false)
        #expect(form.status == 200)
        #expect(
            Dictionary(FormURLEncoding.decode(form.text), uniquingKeysWith: { $1 })["error"] == "bad_verification_code")
    }

    @Test func codeExpiresAfterTenMinutes() async throws {
        let harness = try H()
        let code = try await Self.code(harness).code
        harness.clock.advance(by: 601)
        #expect(try await Self.exchange(harness, code: code).oauthError == "bad_verification_code")
    }

    // MARK: - GitHub App tokens

    @Test func appTokensExpireAndRefreshTokensRotate() async throws {
        let harness = try H()
        try harness.sandbox.register(
            .github(
                clientID: Self.appClientID, clientSecret: H.secret, redirectURIs: [H.redirectURI(.github)],
                expiringTokens: true))
        let query = H.authorizationQuery(.github).map { $0.0 == "client_id" ? ($0.0, Self.appClientID) : $0 }
        let first = try await Self.exchange(
            harness, code: try await Self.code(harness, query: query).code, clientID: Self.appClientID)
        let body = try first.json()
        #expect(body["expires_in"] == .integer(28_800))
        #expect(body["refresh_token_expires_in"] == .integer(15_811_200))
        #expect(body["scope"] == .string(""))
        let access = try #require(body["access_token"]?.stringValue)
        let refresh = try #require(body["refresh_token"]?.stringValue)
        #expect(access.hasPrefix("ghu_"))
        #expect(refresh.hasPrefix("ghr_"))

        func refreshWith(_ token: String, clientID: String = Self.appClientID) async throws -> Reply {
            try await harness.post(
                H.tokenPath(.github),
                form: [
                    ("client_id", clientID), ("client_secret", H.secret), ("grant_type", "refresh_token"),
                    ("refresh_token", token),
                ], headers: ["Accept": "application/json"])
        }
        let rotated = try await refreshWith(refresh)
        let newAccess = try #require(try rotated.json()["access_token"]?.stringValue)
        #expect(try rotated.json()["refresh_token"]?.stringValue != refresh)
        #expect(try await refreshWith(refresh).oauthError == "bad_refresh_token")
        #expect(try await harness.get("/github/user", headers: Self.bearer(access)).status == 401)
        #expect(try await harness.get("/github/user", headers: Self.bearer(newAccess)).status == 200)
        // GitHub App tokens have permissions, not scopes: /user/emails needs no user:email scope.
        #expect(try await harness.get("/github/user/emails", headers: Self.bearer(newAccess)).status == 200)

        harness.clock.advance(by: 28_801)
        #expect(try await harness.get("/github/user", headers: Self.bearer(newAccess)).status == 401)

        let oauthApp = try await Self.exchange(harness, code: try await Self.code(harness).code)
        #expect(try oauthApp.json()["refresh_token"] == nil)
        #expect(try await refreshWith("ghr_x", clientID: H.githubClientID).oauthError == "unsupported_grant_type")
    }

    // MARK: - REST API

    @Test(arguments: Transport.available) func userHasANumericIDAndAPublicEmailOrNull(transport: Transport)
        async throws
    {
        let harness = try H(transport: transport)
        let alice = try await Self.token(harness)
        let reply = try await harness.get("/github/user", headers: Self.bearer(alice))
        #expect(reply.status == 200)
        let user = try reply.json()
        #expect(user["id"] == .integer(583_231))
        #expect(user["login"] == .string("alice-example"))
        #expect(user["name"] == .string("Alice Example"))
        #expect(user["email"] == .string("alice@example.com"))
        #expect(reply.headers["X-OAuth-Scopes"] == "read:user, user:email")
        #expect(try await harness.get("/github/user", headers: Self.bearer(alice, scheme: "token")).status == 200)

        let bob = try await Self.token(harness, identity: [("identity", "preset-1")])
        #expect(try await harness.get("/github/user", headers: Self.bearer(bob)).json()["email"] == .null)
    }

    @Test func apiRefusesMissingUserAgentCredentialsOrBadTokens() async throws {
        let harness = try H()
        let token = try await Self.token(harness)
        let noAgent = try await harness.get("/github/user", headers: ["Authorization": "Bearer " + token])
        #expect(noAgent.status == 403)
        let anonymous = try await harness.get("/github/user", headers: Self.api)
        #expect(anonymous.status == 401)
        #expect(try anonymous.json()["message"] == .string("Requires authentication"))
        let bad = try await harness.get("/github/user", headers: Self.bearer("gho_unknown"))
        #expect(bad.status == 401)
        #expect(try bad.json()["message"] == .string("Bad credentials"))
        #expect(try await harness.get("/github/user", headers: Self.bearer(token, scheme: "Basic")).status == 401)
    }

    @Test func emailsListPrimaryAndVerifiedAndNeedTheScope() async throws {
        let harness = try H()
        let bob = try await Self.token(harness, identity: [("identity", "preset-1")])
        let emails = try #require(
            try await harness.get("/github/user/emails", headers: Self.bearer(bob)).json().arrayValue)
        #expect(emails.count == 2)
        #expect(emails[0]["email"] == .string("bob@users.example"))
        #expect(emails[0]["primary"] == .bool(true))
        #expect(emails[0]["verified"] == .bool(false))
        #expect(emails[0]["visibility"] == .string("private"))
        #expect(emails[1]["email"] == .string("bob@work.example"))
        #expect(emails[1]["primary"] == .bool(false))
        #expect(emails[1]["verified"] == .bool(true))

        let narrow = H.authorizationQuery(.github).map { $0.0 == "scope" ? ($0.0, "read:user") : $0 }
        let code = try await Self.code(harness, query: narrow).code
        let token = try #require(try await Self.exchange(harness, code: code).json()["access_token"]?.stringValue)
        #expect(try await harness.get("/github/user/emails", headers: Self.bearer(token)).status == 404)
        #expect(try await harness.get("/github/user", headers: Self.bearer(token)).status == 200)
    }

    // MARK: - Revocation

    static func delete(_ harness: H, _ path: String, token: String?, basic: HTTPHeaders) async throws -> Reply {
        var headers = basic
        headers["Content-Type"] = "application/json"
        headers["User-Agent"] = "authflow-tests"
        let body = token.map { Array(JSONValue.object(["access_token": .string($0)]).serialized().utf8) } ?? []
        return try await harness.send("DELETE", path, headers: headers, body: body)
    }

    @Test(arguments: Transport.available) func deletingTheGrantRevokesEveryTokenOfTheUser(transport: Transport)
        async throws
    {
        let harness = try H(transport: transport)
        let first = try await Self.token(harness)
        let second = try await Self.token(harness)
        let path = "/github/applications/\(H.githubClientID)/grant"
        let credentials = H.basic(H.githubClientID, H.secret)

        #expect(
            try await Self.delete(harness, path, token: first, basic: H.basic(H.githubClientID, "wrong")).status == 401)
        #expect(try await Self.delete(harness, path, token: first, basic: [:]).status == 401)
        #expect(
            try await Self.delete(
                harness, "/github/applications/other-app/grant", token: first, basic: credentials
            ).status == 401)
        #expect(try await Self.delete(harness, path, token: nil, basic: credentials).status == 422)
        #expect(try await Self.delete(harness, path, token: "gho_unknown", basic: credentials).status == 404)
        #expect(try await harness.get("/github/user", headers: Self.bearer(first)).status == 200)

        let deleted = try await Self.delete(harness, path, token: first, basic: credentials)
        #expect(deleted.status == 204, "\(deleted.text)")
        #expect(try await harness.get("/github/user", headers: Self.bearer(first)).status == 401)
        // The whole authorization goes: the user's token from another sign-in with the app too.
        #expect(try await harness.get("/github/user", headers: Self.bearer(second)).status == 401)
        let revocations = harness.sandbox.revocations(for: .github)
        #expect(revocations.count == 1)
        #expect(revocations.first?.clientID == H.githubClientID)
        #expect(revocations.first?.kind == .accessToken)
        #expect(try await Self.delete(harness, path, token: first, basic: credentials).status == 404)
    }

    @Test func deletingOneTokenLeavesTheOthers() async throws {
        let harness = try H()
        let first = try await Self.token(harness)
        let second = try await Self.token(harness)
        let path = "/github/applications/\(H.githubClientID)/token"
        let reply = try await Self.delete(harness, path, token: first, basic: H.basic(H.githubClientID, H.secret))
        #expect(reply.status == 204)
        #expect(try await harness.get("/github/user", headers: Self.bearer(first)).status == 401)
        #expect(try await harness.get("/github/user", headers: Self.bearer(second)).status == 200)
        #expect(try await harness.send("GET", path, headers: Self.api).status == 405)
    }
}
