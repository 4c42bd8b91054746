import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowSandbox
import Foundation
import Testing

@Suite("X emulator")
struct XEmulatorTests {
    typealias H = SandboxHarness

    static let pkce = PKCE.generate(random: CountingRandom(seed: 11))

    func tokens(_ harness: SandboxHarness, scope: String = "tweet.read users.read offline.access") async throws
        -> JSONValue
    {
        let query = H.authorizationQuery(.x, pkce: Self.pkce).map { $0.0 == "scope" ? ("scope", scope) : $0 }
        let (code, _) = try await harness.code(.x, query: query)
        let reply = try await harness.exchange(.x, code: code, verifier: Self.pkce.verifier)
        #expect(reply.status == 200, "\(reply.text)")
        return try reply.json()
    }

    func refresh(_ harness: SandboxHarness, _ token: String) async throws -> Reply {
        try await harness.post(
            H.tokenPath(.x), form: [("grant_type", "refresh_token"), ("refresh_token", token)],
            headers: H.basic(H.xClientID, H.secret))
    }

    func me(_ harness: SandboxHarness, _ accessToken: String) async throws -> Reply {
        try await harness.get("/x/2/users/me", headers: ["Authorization": "Bearer " + accessToken])
    }

    @Test(arguments: Transport.available) func refusesAuthorizationWithoutCodeChallenge(transport: Transport)
        async throws
    {
        let harness = try H(transport: transport)
        let reply = try await harness.get(H.authorizePath(.x), H.authorizationQuery(.x))
        #expect(reply.status == 400)
        #expect(reply.text.contains("code_challenge"))
        #expect(reply.location == nil)
    }

    @Test(arguments: Transport.available) func requiresStateOfAtMost500Characters(transport: Transport) async throws {
        let harness = try H(transport: transport)
        let withoutState = H.authorizationQuery(.x, pkce: Self.pkce).filter { $0.0 != "state" }
        #expect(try await harness.get(H.authorizePath(.x), withoutState).status == 400)
        let long = H.authorizationQuery(.x, state: String(repeating: "s", count: 501), pkce: Self.pkce)
        #expect(try await harness.get(H.authorizePath(.x), long).status == 400)
        let longest = H.authorizationQuery(.x, state: String(repeating: "s", count: 500), pkce: Self.pkce)
        #expect(try await harness.get(H.authorizePath(.x), longest).status == 200)
    }

    @Test(arguments: Transport.available) func refusesUnknownScope(transport: Transport) async throws {
        let harness = try H(transport: transport)
        let query = H.authorizationQuery(.x, pkce: Self.pkce).map {
            $0.0 == "scope" ? ("scope", "users.read openid") : $0
        }
        let reply = try await harness.get(H.authorizePath(.x), query)
        #expect(reply.status == 400)
        #expect(reply.text.contains("invalid_scope"))
    }

    @Test(arguments: Transport.available) func acceptsTheSDKsLowercaseS256AndPlain(transport: Transport) async throws {
        let harness = try H(transport: transport)
        let lower =
            H.authorizationQuery(.x).filter { $0.0 != "state" } + [
                ("state", "s"), ("code_challenge", Self.pkce.challenge), ("code_challenge_method", "s256"),
            ]
        let (code, _) = try await harness.code(.x, query: lower)
        #expect(try await harness.exchange(.x, code: code, verifier: Self.pkce.verifier).status == 200)

        let plain =
            H.authorizationQuery(.x) + [
                ("code_challenge", "challenge" + String(repeating: "x", count: 40)), ("code_challenge_method", "plain"),
            ]
        let (plainCode, _) = try await harness.code(.x, query: plain)
        #expect(
            try await harness.exchange(.x, code: plainCode, verifier: "challenge" + String(repeating: "x", count: 40))
                .status
                == 200)
    }

    @Test(arguments: Transport.available) func tokenRequestRequiresHTTPBasic(transport: Transport) async throws {
        let harness = try H(transport: transport)
        let (code, _) = try await harness.code(.x, pkce: Self.pkce)
        let form: [(String, String)] = [
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", H.redirectURI(.x)),
            ("code_verifier", Self.pkce.verifier),
        ]
        let bodyOnly = try await harness.post(
            H.tokenPath(.x), form: form + [("client_id", H.xClientID), ("client_secret", H.secret)])
        #expect(bodyOnly.status == 401)
        #expect(bodyOnly.oauthError == "unauthorized_client")
        #expect(try bodyOnly.json()["error_description"] == .string("Missing valid authorization header"))

        let wrong = try await harness.post(H.tokenPath(.x), form: form, headers: H.basic(H.xClientID, "wrong"))
        #expect(wrong.status == 401)
        #expect(wrong.oauthError == "invalid_client")

        let bearer = try await harness.post(H.tokenPath(.x), form: form, headers: ["Authorization": "Bearer x"])
        #expect(bearer.oauthError == "unauthorized_client")

        #expect(try await harness.exchange(.x, code: code, verifier: Self.pkce.verifier).status == 200)
    }

    @Test(arguments: Transport.available) func publicClientSendsClientIDInTheBody(transport: Transport) async throws {
        let harness = try H(transport: transport)
        let query = H.authorizationQuery(.x, pkce: Self.pkce).map {
            $0.0 == "client_id" ? ("client_id", H.xPublicClientID) : $0
        }
        let (code, _) = try await harness.code(.x, query: query)
        let reply = try await harness.post(
            H.tokenPath(.x),
            form: [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", H.redirectURI(.x)),
                ("code_verifier", Self.pkce.verifier), ("client_id", H.xPublicClientID),
            ])
        #expect(reply.status == 200, "\(reply.text)")
    }

    @Test(arguments: Transport.available) func refusesWrongOrMissingVerifier(transport: Transport) async throws {
        let harness = try H(transport: transport)
        let (code, _) = try await harness.code(.x, pkce: Self.pkce)
        let missing = try await harness.exchange(.x, code: code)
        #expect(missing.oauthError == "invalid_request")
        let wrong = try await harness.exchange(.x, code: code, verifier: String(repeating: "z", count: 43))
        #expect(wrong.status == 400)
        #expect(wrong.oauthError == "invalid_grant")
        #expect(try await harness.exchange(.x, code: code, verifier: Self.pkce.verifier).oauthError == "invalid_grant")
    }

    @Test(arguments: Transport.available) func codeIsValidForThirtySeconds(transport: Transport) async throws {
        let harness = try H(transport: transport)
        let (fresh, _) = try await harness.code(.x, pkce: Self.pkce)
        harness.clock.advance(by: 29)
        #expect(try await harness.exchange(.x, code: fresh, verifier: Self.pkce.verifier).status == 200)
        let (stale, _) = try await harness.code(.x, pkce: Self.pkce)
        harness.clock.advance(by: 31)
        let reply = try await harness.exchange(.x, code: stale, verifier: Self.pkce.verifier)
        #expect(reply.oauthError == "invalid_grant")
    }

    @Test(arguments: Transport.available) func tokenResponseHasTwoHourBearerTokenAndScope(transport: Transport)
        async throws
    {
        let harness = try H(transport: transport)
        let body = try await tokens(harness)
        #expect(body["token_type"] == .string("bearer"))
        #expect(body["expires_in"] == .integer(7200))
        #expect(body["scope"] == .string("tweet.read users.read offline.access"))
        let accessToken = try #require(body["access_token"]?.stringValue)
        harness.clock.advance(by: 7199)
        #expect(try await me(harness, accessToken).status == 200)
        harness.clock.advance(by: 2)
        #expect(try await me(harness, accessToken).status == 401)
    }

    @Test(arguments: Transport.available) func refreshTokenOnlyWithOfflineAccess(transport: Transport) async throws {
        let harness = try H(transport: transport)
        let body = try await tokens(harness, scope: "tweet.read users.read")
        #expect(body["refresh_token"] == nil)
    }

    @Test(arguments: Transport.available) func refreshTokensRotateAndReuseRevokesTheFamily(transport: Transport)
        async throws
    {
        let harness = try H(transport: transport)
        let body = try await tokens(harness)
        let first = try #require(body["refresh_token"]?.stringValue)

        let rotated = try await refresh(harness, first)
        #expect(rotated.status == 200)
        let rotatedBody = try rotated.json()
        let second = try #require(rotatedBody["refresh_token"]?.stringValue)
        #expect(second != first)
        let newAccess = try #require(rotatedBody["access_token"]?.stringValue)
        #expect(try await me(harness, newAccess).status == 200)

        let reuse = try await refresh(harness, first)
        #expect(reuse.oauthError == "invalid_grant")
        // The reuse looked like theft: the whole grant is gone.
        #expect(try await refresh(harness, second).oauthError == "invalid_grant")
        #expect(try await me(harness, newAccess).status == 401)
    }

    @Test(arguments: Transport.available) func refreshNeedsBasicToo(transport: Transport) async throws {
        let harness = try H(transport: transport)
        let refreshToken = try #require(try await tokens(harness)["refresh_token"]?.stringValue)
        let reply = try await harness.post(
            H.tokenPath(.x),
            form: [("grant_type", "refresh_token"), ("refresh_token", refreshToken), ("client_id", H.xClientID)])
        #expect(reply.status == 401)
        #expect(reply.oauthError == "unauthorized_client")
    }

    @Test(arguments: Transport.available) func usersMeRequiresTweetReadAndUsersRead(transport: Transport) async throws {
        let harness = try H(transport: transport)
        let full = try #require(try await tokens(harness)["access_token"]?.stringValue)
        let reply = try await me(harness, full)
        #expect(reply.status == 200)
        #expect(
            try reply.json()
                == .object([
                    "data": .object([
                        "id": .string("1234567890123456789"), "name": .string("Alice Example"),
                        "username": .string("alice_example"),
                    ])
                ]))

        let usersOnly = try #require(try await tokens(harness, scope: "users.read")["access_token"]?.stringValue)
        let forbidden = try await me(harness, usersOnly)
        #expect(forbidden.status == 403)
        #expect(forbidden.text.contains("tweet.read"))
        #expect(try await harness.get("/x/2/users/me").status == 401)
    }

    @Test(arguments: Transport.available) func revokeRecordsAndInvalidates(transport: Transport) async throws {
        let harness = try H(transport: transport)
        let accessToken = try #require(try await tokens(harness)["access_token"]?.stringValue)
        let reply = try await harness.post(
            "/x/2/oauth2/revoke", form: [("token", accessToken), ("token_type_hint", "access_token")],
            headers: H.basic(H.xClientID, H.secret))
        #expect(reply.status == 200)
        #expect(try reply.json() == .object(["revoked": .bool(true)]))
        #expect(try await me(harness, accessToken).status == 401)
        let revocations = harness.sandbox.revocations(for: .x)
        #expect(revocations.count == 1)
        #expect(revocations.first?.kind == .accessToken)
        #expect(revocations.first?.tokenTypeHint == "access_token")

        let unauthenticated = try await harness.post("/x/2/oauth2/revoke", form: [("token", accessToken)])
        #expect(unauthenticated.status == 401)
    }
}
