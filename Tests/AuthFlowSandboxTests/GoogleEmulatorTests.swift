import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowSandbox
import Foundation
import Testing

@Suite("Google emulator")
struct GoogleEmulatorTests {
    typealias H = SandboxHarness

    @Test(arguments: Transport.available) func discoveryListsTheSandboxEndpointsAndIssuer(transport: Transport)
        async throws
    {
        let harness = try H(transport: transport)
        let document = try await harness.get("/google/.well-known/openid-configuration").json()
        let endpoints = harness.sandbox.endpoints(for: .google)
        #expect(document["issuer"] == .string(harness.sandbox.baseURL + "/google"))
        #expect(document["authorization_endpoint"] == .string(endpoints.authorization))
        #expect(document["token_endpoint"] == .string(endpoints.token))
        #expect(document["userinfo_endpoint"] == .string(try #require(endpoints.userinfo)))
        #expect(document["jwks_uri"] == .string(try #require(endpoints.jwks)))
        #expect(document["code_challenge_methods_supported"] == .array([.string("plain"), .string("S256")]))
        #expect(
            document["token_endpoint_auth_methods_supported"]
                == .array([.string("client_secret_post"), .string("client_secret_basic")]))
    }

    @Test(arguments: Transport.available) func jwksPublishesPublicRSAKeysWithKidAndCountsFetches(transport: Transport)
        async throws
    {
        let harness = try H(transport: transport)
        for _ in 0..<3 { _ = try await harness.get("/google/oauth2/v3/certs") }
        let reply = try await harness.get("/google/oauth2/v3/certs")
        let keys = try #require(try reply.json()["keys"]?.arrayValue)
        #expect(keys.count == 1)
        #expect(keys[0]["kid"] == .string("google-key-1"))
        #expect(keys[0]["alg"] == .string("RS256"))
        #expect(keys[0]["use"] == .string("sig"))
        #expect(keys[0]["d"] == nil)
        #expect(harness.sandbox.requestCounts(for: .google).jwks == 4)
    }

    @Test(arguments: Transport.available) func s256PKCESucceedsAndIssuesVerifiableIDToken(transport: Transport)
        async throws
    {
        let harness = try H(transport: transport)
        let pkce = PKCE.generate(random: CountingRandom(seed: 3))
        let (code, fields) = try await harness.code(.google, pkce: pkce)
        #expect(fields["state"] == "st-123")
        #expect(fields["scope"] == "openid email profile")
        let reply = try await harness.exchange(.google, code: code, verifier: pkce.verifier)
        #expect(reply.status == 200, "\(reply.text)")
        let body = try reply.json()
        #expect(body["token_type"] == .string("Bearer"))
        #expect(body["refresh_token"] == nil)  // no access_type=offline
        let idToken = try #require(body["id_token"]?.stringValue)
        let claims = try await harness.verifyIDToken(
            idToken, provider: .google, audience: H.googleClientID, nonce: "n-0S6_WzA2Mj")
        #expect(claims["email_verified"] == .bool(true))
        #expect(claims.authorizedParty == H.googleClientID)
        #expect(claims["name"] == .string("Alice Example"))
        #expect(try unverifiedParts(idToken).header["kid"] == .string("google-key-1"))
    }

    @Test(arguments: Transport.available) func plainPKCESucceeds(transport: Transport) async throws {
        let harness = try H(transport: transport)
        let verifier = String(repeating: "v", count: 50)
        var query = H.authorizationQuery(.google)
        query += [("code_challenge", verifier), ("code_challenge_method", "plain")]
        let (code, _) = try await harness.code(.google, query: query)
        #expect(try await harness.exchange(.google, code: code, verifier: verifier).status == 200)
    }

    @Test(arguments: Transport.available) func refusesWrongMissingOrUnexpectedVerifier(transport: Transport)
        async throws
    {
        let harness = try H(transport: transport)
        let pkce = PKCE.generate(random: CountingRandom(seed: 4))
        let (wrongCode, _) = try await harness.code(.google, pkce: pkce)
        let wrong = try await harness.exchange(
            .google, code: wrongCode, verifier: PKCE.generate(random: CountingRandom(seed: 5)).verifier)
        #expect(wrong.status == 400)
        #expect(wrong.oauthError == "invalid_grant")
        // A failed attempt burns the code: the right verifier no longer helps.
        #expect(
            try await harness.exchange(.google, code: wrongCode, verifier: pkce.verifier).oauthError == "invalid_grant")

        let (missingCode, _) = try await harness.code(.google, pkce: pkce)
        #expect(try await harness.exchange(.google, code: missingCode).oauthError == "invalid_grant")

        let (noChallengeCode, _) = try await harness.code(.google)
        let unexpected = try await harness.exchange(.google, code: noChallengeCode, verifier: pkce.verifier)
        #expect(unexpected.oauthError == "invalid_grant")
    }

    @Test(arguments: Transport.available) func refusesMalformedChallengeAtAuthorization(transport: Transport)
        async throws
    {
        let harness = try H(transport: transport)
        for pair in [("short", "S256"), (String(repeating: "a", count: 43), "S512")] {
            var query = H.authorizationQuery(.google)
            query += [("code_challenge", pair.0), ("code_challenge_method", pair.1)]
            let reply = try await harness.get(H.authorizePath(.google), query)
            #expect(reply.status == 400)
        }
    }

    @Test(arguments: Transport.available) func acceptsClientSecretBasicAndRefusesBothMethodsOrWrongSecret(
        transport: Transport
    ) async throws {
        let harness = try H(transport: transport)
        let (code, _) = try await harness.code(.google)
        let form: [(String, String)] = [
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", H.redirectURI(.google)),
        ]
        let both = try await harness.post(
            H.tokenPath(.google), form: form + [("client_secret", H.secret)],
            headers: H.basic(H.googleClientID, H.secret))
        #expect(both.oauthError == "invalid_request")
        let wrong = try await harness.post(H.tokenPath(.google), form: form, headers: H.basic(H.googleClientID, "nope"))
        #expect(wrong.status == 401)
        #expect(wrong.oauthError == "invalid_client")
        let unknown = try await harness.post(
            H.tokenPath(.google), form: form + [("client_id", "other"), ("client_secret", H.secret)])
        #expect(unknown.status == 401)
        let basic = try await harness.post(
            H.tokenPath(.google), form: form, headers: H.basic(H.googleClientID, H.secret))
        #expect(basic.status == 200, "\(basic.text)")
    }

    @Test(arguments: Transport.available) func idTokenOnlyWithOpenIDScope(transport: Transport) async throws {
        let harness = try H(transport: transport)
        let query = H.authorizationQuery(.google).map { $0.0 == "scope" ? ("scope", "email profile") : $0 }
        let (code, _) = try await harness.code(.google, query: query)
        let body = try await harness.exchange(.google, code: code).json()
        #expect(body["access_token"] != nil)
        #expect(body["id_token"] == nil)
    }

    @Test(arguments: Transport.available) func userinfoAcceptsBearerHeaderOnly(transport: Transport) async throws {
        let harness = try H(transport: transport)
        let (code, _) = try await harness.code(.google)
        let accessToken = try #require(
            try await harness.exchange(.google, code: code).json()["access_token"]?.stringValue)

        let viaQuery = try await harness.get("/google/v1/userinfo", [("access_token", accessToken)])
        #expect(viaQuery.status == 400)
        #expect(viaQuery.oauthError == "invalid_request")
        let missing = try await harness.get("/google/v1/userinfo")
        #expect(missing.status == 401)
        #expect(missing.headers["WWW-Authenticate"]?.hasPrefix("Bearer") == true)
        let bogus = try await harness.get("/google/v1/userinfo", headers: ["Authorization": "Bearer nope"])
        #expect(bogus.status == 401)
        #expect(bogus.oauthError == "invalid_token")

        let reply = try await harness.get("/google/v1/userinfo", headers: ["Authorization": "Bearer " + accessToken])
        #expect(reply.status == 200)
        let body = try reply.json()
        #expect(body["sub"] == .string("109876543210123456789"))
        #expect(body["email_verified"] == .bool(true))
        #expect(body["email"] == .string("alice@example.com"))
        #expect(harness.sandbox.requestCounts(for: .google).userinfo == 4)
    }

    @Test(arguments: Transport.available) func accessTokenExpires(transport: Transport) async throws {
        let harness = try H(transport: transport)
        let (code, _) = try await harness.code(.google)
        let accessToken = try #require(
            try await harness.exchange(.google, code: code).json()["access_token"]?.stringValue)
        harness.clock.advance(by: 3600)
        let reply = try await harness.get("/google/v1/userinfo", headers: ["Authorization": "Bearer " + accessToken])
        #expect(reply.status == 401)
    }

    @Test(arguments: Transport.available) func refreshTokenOnlyForOfflineAccessOnFirstOrForcedConsent(
        transport: Transport
    ) async throws {
        let harness = try H(transport: transport)
        let offline = H.authorizationQuery(.google) + [("access_type", "offline")]
        let (first, _) = try await harness.code(.google, query: offline)
        let firstBody = try await harness.exchange(.google, code: first).json()
        let refreshToken = try #require(firstBody["refresh_token"]?.stringValue)

        let (second, _) = try await harness.code(.google, query: offline)
        #expect(try await harness.exchange(.google, code: second).json()["refresh_token"] == nil)

        let (forced, _) = try await harness.code(.google, query: offline + [("prompt", "consent")])
        #expect(try await harness.exchange(.google, code: forced).json()["refresh_token"] != nil)

        let refreshed = try await harness.post(
            H.tokenPath(.google),
            form: [
                ("grant_type", "refresh_token"), ("refresh_token", refreshToken), ("client_id", H.googleClientID),
                ("client_secret", H.secret),
            ])
        #expect(refreshed.status == 200)
        let body = try refreshed.json()
        #expect(body["refresh_token"] == nil)
        _ = try await harness.verifyIDToken(
            try #require(body["id_token"]?.stringValue), provider: .google, audience: H.googleClientID)
    }

    @Test(arguments: Transport.available) func promptNoneCannotSucceedSilently(transport: Transport) async throws {
        let harness = try H(transport: transport)
        let reply = try await harness.get(
            H.authorizePath(.google), H.authorizationQuery(.google) + [("prompt", "none")])
        #expect(reply.status == 302)
        let fields = H.callbackFields(reply)
        #expect(fields["error"] == "interaction_required")
        #expect(fields["state"] == "st-123")
    }

    @Test(arguments: Transport.available) func refusesUnknownScopeAndResponseType(transport: Transport) async throws {
        let harness = try H(transport: transport)
        let badScope = H.authorizationQuery(.google).map { $0.0 == "scope" ? ("scope", "openid drive") : $0 }
        #expect(try await harness.get(H.authorizePath(.google), badScope).text.contains("invalid_scope"))
        let implicit = H.authorizationQuery(.google).map { $0.0 == "response_type" ? ("response_type", "token") : $0 }
        #expect(try await harness.get(H.authorizePath(.google), implicit).text.contains("unsupported_response_type"))
        let mismatch = H.authorizationQuery(.google).map {
            $0.0 == "redirect_uri" ? ("redirect_uri", "http://app.example/auth/google/callback") : $0
        }
        #expect(try await harness.get(H.authorizePath(.google), mismatch).text.contains("redirect_uri_mismatch"))
    }

    @Test(arguments: Transport.available) func revokeInvalidatesTheGrant(transport: Transport) async throws {
        let harness = try H(transport: transport)
        let (code, _) = try await harness.code(.google)
        let accessToken = try #require(
            try await harness.exchange(.google, code: code).json()["access_token"]?.stringValue)
        #expect(try await harness.post("/google/revoke", form: [("token", accessToken)]).status == 200)
        #expect(try await harness.post("/google/revoke", form: [("token", "unknown")]).status == 400)
        let userinfo = try await harness.get("/google/v1/userinfo", headers: ["Authorization": "Bearer " + accessToken])
        #expect(userinfo.status == 401)
        #expect(harness.sandbox.revocations(for: .google).map(\.kind) == [.accessToken, .unknown])
    }
}
