import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowSandbox
import Foundation
import Testing

@Suite("Facebook emulator")
struct FacebookEmulatorTests {
    typealias H = SandboxHarness

    static func proof(_ token: String, secret: String = SandboxHarness.secret) -> String {
        Digest.hmacSHA256(key: Array(secret.utf8), message: Array(token.utf8)).map {
            let text = String($0, radix: 16)
            return $0 < 16 ? "0" + text : text
        }.joined()
    }

    func accessToken(_ harness: SandboxHarness, scope: String = "email") async throws -> String {
        let query = H.authorizationQuery(.facebook).map { $0.0 == "scope" ? ("scope", scope) : $0 }
        let (code, _) = try await harness.code(.facebook, query: query)
        let reply = try await harness.exchange(.facebook, code: code)
        #expect(reply.status == 200, "\(reply.text)")
        return try #require(try reply.json()["access_token"]?.stringValue)
    }

    @Test(arguments: Transport.available) func tokenEndpointAnswersGetOnlyWithBearerTokenAndNoRefreshToken(
        transport: Transport
    ) async throws {
        let harness = try H(transport: transport)
        let (code, fields) = try await harness.code(.facebook)
        #expect(fields["state"] == "st-123")

        let post = try await harness.post(
            H.tokenPath(.facebook),
            form: [
                ("client_id", H.facebookClientID), ("client_secret", H.secret),
                ("redirect_uri", H.redirectURI(.facebook)), ("code", code),
            ])
        #expect(post.status == 405)
        #expect(try post.json()["error"]?["type"] == .string("OAuthException"))

        let reply = try await harness.exchange(.facebook, code: code)
        #expect(reply.status == 200, "\(reply.text)")
        let body = try reply.json()
        #expect(body["token_type"] == .string("bearer"))
        #expect(body["expires_in"]?.int64Value != nil)
        #expect(body["refresh_token"] == nil)
        #expect(body["id_token"] == nil)
    }

    @Test(arguments: Transport.available) func redirectCarriesTheFacebookFragment(transport: Transport) async throws {
        let harness = try H(transport: transport)
        let reply = try await harness.authorize(.facebook, query: H.authorizationQuery(.facebook))
        #expect(reply.status == 302)
        #expect(reply.location?.hasPrefix(H.redirectURI(.facebook) + "?") == true)
        #expect(reply.location?.hasSuffix("#_=_") == true)
    }

    @Test(arguments: Transport.available) func refusesUnknownAppAndWrongSecretWithGraphErrors(transport: Transport)
        async throws
    {
        let harness = try H(transport: transport)
        let (code, _) = try await harness.code(.facebook)
        let wrongSecret = try await harness.get(
            H.tokenPath(.facebook),
            [
                ("client_id", H.facebookClientID), ("client_secret", "wrong"),
                ("redirect_uri", H.redirectURI(.facebook)),
                ("code", code),
            ])
        #expect(wrongSecret.status == 400)
        #expect(wrongSecret.graphCode == 1)
        let unknown = try await harness.get(
            H.tokenPath(.facebook),
            [
                ("client_id", "999"), ("client_secret", H.secret), ("redirect_uri", H.redirectURI(.facebook)),
                ("code", code),
            ])
        #expect(unknown.graphCode == 101)
        // Neither attempt consumed the code.
        #expect(try await harness.exchange(.facebook, code: code).status == 200)
    }

    @Test(arguments: Transport.available) func redirectURIMustMatchAtTheTokenEndpoint(transport: Transport) async throws
    {
        let harness = try H(transport: transport)
        let (code, _) = try await harness.code(.facebook)
        let reply = try await harness.exchange(.facebook, code: code, redirectURI: "https://app.example/elsewhere")
        #expect(reply.status == 400)
        #expect(try reply.json()["error"]?["error_subcode"] == .integer(36_008))
    }

    @Test(arguments: Transport.available) func meRequiresAValidAppSecretProof(transport: Transport) async throws {
        let harness = try H(transport: transport)
        let token = try await accessToken(harness)
        let missing = try await harness.get("/facebook/me", [("access_token", token)])
        #expect(missing.status == 400)
        #expect(try missing.json()["error"]?["type"] == .string("OAuthException"))
        #expect(missing.graphCode == 100)
        let wrong = try await harness.get(
            "/facebook/me", [("access_token", token), ("appsecret_proof", Self.proof(token, secret: "other"))])
        #expect(wrong.status == 400)
        #expect(try wrong.json()["error"]?["message"]?.stringValue?.contains("appsecret_proof") == true)
        // The secret is the HMAC key, the token the message: swapping them is wrong.
        let swapped = Digest.hmacSHA256(key: Array(token.utf8), message: Array(H.secret.utf8))
        let swappedHex = swapped.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        #expect(
            try await harness.get("/facebook/me", [("access_token", token), ("appsecret_proof", swappedHex)]).status
                == 400)

        let good = try await harness.get(
            "/facebook/me", [("access_token", token), ("appsecret_proof", Self.proof(token))])
        #expect(good.status == 200, "\(good.text)")
        let body = try good.json()
        #expect(body == .object(["id": .string("10158234567890123"), "name": .string("Alice Example")]))
    }

    @Test(arguments: Transport.available) func meReturnsOnlyRequestedFieldsAndEmailOnlyWithPermission(
        transport: Transport
    ) async throws {
        let harness = try H(transport: transport)
        let token = try await accessToken(harness)
        let withEmail = try await harness.get(
            "/facebook/v19.0/me",
            [("fields", "id,name,email"), ("appsecret_proof", Self.proof(token))],
            headers: ["Authorization": "Bearer " + token])
        #expect(try withEmail.json()["email"] == .string("alice@example.com"))
        let idOnly = try await harness.get(
            "/facebook/me", [("fields", "id"), ("access_token", token), ("appsecret_proof", Self.proof(token))])
        #expect(try idOnly.json() == .object(["id": .string("10158234567890123")]))
        let unknownField = try await harness.get(
            "/facebook/me",
            [("fields", "id,birthday"), ("access_token", token), ("appsecret_proof", Self.proof(token))])
        #expect(unknownField.status == 400)

        let profileOnly = try await accessToken(harness, scope: "public_profile")
        let noEmail = try await harness.get(
            "/facebook/me",
            [("fields", "id,name,email"), ("access_token", profileOnly), ("appsecret_proof", Self.proof(profileOnly))])
        #expect(try noEmail.json()["email"] == nil)
    }

    @Test(arguments: Transport.available) func meRefusesUnknownOrMissingTokens(transport: Transport) async throws {
        let harness = try H(transport: transport)
        let unknown = try await harness.get("/facebook/me", [("access_token", "EAAbogus"), ("appsecret_proof", "00")])
        #expect(unknown.graphCode == 190)
        let missing = try await harness.get("/facebook/me")
        #expect(missing.status == 400)
    }

    @Test(arguments: Transport.available) func pkceIsCheckedWhenUsed(transport: Transport) async throws {
        let harness = try H(transport: transport)
        let pkce = PKCE.generate(random: CountingRandom(seed: 9))
        let (code, _) = try await harness.code(.facebook, pkce: pkce)
        let wrong = try await harness.exchange(.facebook, code: code, verifier: String(repeating: "w", count: 43))
        #expect(wrong.status == 400)
        #expect(wrong.graphCode == 100)
        let (second, _) = try await harness.code(.facebook, pkce: pkce)
        #expect(try await harness.exchange(.facebook, code: second).status == 400)
        let (third, _) = try await harness.code(.facebook, pkce: pkce)
        #expect(try await harness.exchange(.facebook, code: third, verifier: pkce.verifier).status == 200)
    }

    @Test(arguments: Transport.available) func openIDScopeAddsAVerifiableIDToken(transport: Transport) async throws {
        let harness = try H(transport: transport)
        let query = H.authorizationQuery(.facebook).map { $0.0 == "scope" ? ("scope", "openid,email") : $0 }
        let (code, _) = try await harness.code(.facebook, query: query)
        let body = try await harness.exchange(.facebook, code: code).json()
        let idToken = try #require(body["id_token"]?.stringValue)
        let claims = try await harness.verifyIDToken(
            idToken, provider: .facebook, audience: H.facebookClientID, nonce: "n-0S6_WzA2Mj")
        #expect(claims["email"] == .string("alice@example.com"))
        #expect(claims["jti"] != nil)
    }

    @Test(arguments: Transport.available) func refusesUnknownScopes(transport: Transport) async throws {
        let harness = try H(transport: transport)
        let query = H.authorizationQuery(.facebook).map { $0.0 == "scope" ? ("scope", "email,user_posts") : $0 }
        let reply = try await harness.get(H.authorizePath(.facebook), query)
        #expect(reply.status == 400)
        #expect(reply.text.contains("Invalid Scopes"))
    }

    @Test(arguments: Transport.available) func exchangesForALongLivedToken(transport: Transport) async throws {
        let harness = try H(transport: transport)
        let token = try await accessToken(harness)
        let reply = try await harness.get(
            H.tokenPath(.facebook),
            [
                ("grant_type", "fb_exchange_token"), ("client_id", H.facebookClientID), ("client_secret", H.secret),
                ("fb_exchange_token", token),
            ])
        #expect(reply.status == 200)
        #expect(try reply.json()["expires_in"] == .integer(5_183_944))
    }
}
