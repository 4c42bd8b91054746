import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowSandbox
import Foundation
import Testing

@Suite("Apple emulator")
struct AppleEmulatorTests {
    typealias H = SandboxHarness

    @Test(arguments: Transport.available, [nil, "query", "fragment"] as [String?])
    func refusesNameOrEmailScopeWithoutFormPost(transport: Transport, mode: String?) async throws {
        let harness = try H(transport: transport)
        var query = H.authorizationQuery(.apple).filter { $0.0 != "response_mode" }
        if let mode { query.append(("response_mode", mode)) }
        let reply = try await harness.get(H.authorizePath(.apple), query)
        #expect(reply.status == 400)
        #expect(reply.text.contains("response_mode must be form_post when name or email scope is requested"))
        #expect(reply.location == nil)
    }

    @Test(arguments: Transport.available) func acceptsQueryModeWithoutNameOrEmailScope(transport: Transport)
        async throws
    {
        let harness = try H(transport: transport)
        let query: [(String, String)] = [
            ("client_id", H.appleClientID), ("redirect_uri", H.redirectURI(.apple)), ("response_type", "code"),
            ("state", "s1"),
        ]
        let reply = try await harness.authorize(.apple, query: query)
        #expect(reply.status == 302)
        let fields = H.callbackFields(reply)
        #expect(fields["code"] != nil)
        #expect(fields["state"] == "s1")
        #expect(fields["user"] == nil)
    }

    @Test(arguments: Transport.available) func refusesUnknownClientAndInexactRedirectURI(transport: Transport)
        async throws
    {
        let harness = try H(transport: transport)
        var query = H.authorizationQuery(.apple)
        query[0] = ("client_id", "com.example.other")
        let unknown = try await harness.get(H.authorizePath(.apple), query)
        #expect(unknown.status == 401)
        #expect(unknown.text.contains("invalid_client"))

        for redirect in [
            H.redirectURI(.apple) + "/", "https://APP.example/auth/apple/callback", "https://evil.example/cb",
        ] {
            var mismatched = H.authorizationQuery(.apple)
            mismatched[1] = ("redirect_uri", redirect)
            let reply = try await harness.get(H.authorizePath(.apple), mismatched)
            #expect(reply.status == 400, "redirect \(redirect) must be refused")
            #expect(reply.location == nil)
        }
    }

    @Test(arguments: Transport.available) func refusesIDTokenResponseTypeInQueryMode(transport: Transport) async throws
    {
        let harness = try H(transport: transport)
        let query: [(String, String)] = [
            ("client_id", H.appleClientID), ("redirect_uri", H.redirectURI(.apple)),
            ("response_type", "code id_token"), ("response_mode", "query"),
        ]
        let reply = try await harness.get(H.authorizePath(.apple), query)
        #expect(reply.status == 400)
        #expect(reply.text.contains("form_post or fragment"))
    }

    @Test(arguments: Transport.available) func formPostPageAutoSubmitsWithNoscriptButton(transport: Transport)
        async throws
    {
        let harness = try H(transport: transport)
        let reply = try await harness.authorize(.apple, query: H.authorizationQuery(.apple, state: "st<\"&'>"))
        #expect(reply.status == 200)
        #expect(reply.headers["Content-Type"]?.hasPrefix("text/html") == true)
        #expect(reply.headers["Cache-Control"] == "no-store")
        let html = reply.text
        #expect(html.contains("<form method=\"post\" action=\"\(H.redirectURI(.apple))\">"))
        #expect(html.contains("<script>document.forms[0].submit();</script>"))
        #expect(html.contains("<noscript>"))
        #expect(html.contains("<button type=\"submit\">"))
        // The state is echoed escaped, so it cannot break out of the attribute.
        #expect(html.contains("value=\"st&lt;&quot;&amp;&#39;&gt;\""))
        #expect(!html.contains("st<\""))
        let fields = H.callbackFields(reply)
        #expect(fields["state"] == "st<\"&'>")
        #expect(fields["code"] != nil)
    }

    @Test(arguments: Transport.available) func sendsUserOnlyOnFirstConsent(transport: Transport) async throws {
        let harness = try H(transport: transport)
        let first = H.callbackFields(try await harness.authorize(.apple, query: H.authorizationQuery(.apple)))
        let userText = try #require(first["user"])
        let user = try JSONValue.parse(Array(userText.utf8))
        #expect(user["name"]?["firstName"]?.stringValue == "Alice")
        #expect(user["name"]?["lastName"]?.stringValue == "Example")
        #expect(user["email"]?.stringValue == "alice@example.com")

        let second = H.callbackFields(try await harness.authorize(.apple, query: H.authorizationQuery(.apple)))
        #expect(second["code"] != nil)
        #expect(second["user"] == nil)

        // Another identity is a first consent of its own.
        let other = H.callbackFields(
            try await harness.authorize(
                .apple, query: H.authorizationQuery(.apple), identity: [("identity", "preset-1")]))
        #expect(other["user"] != nil)
    }

    @Test(arguments: Transport.available) func userFieldCarriesOnlyRequestedScopes(transport: Transport) async throws {
        let harness = try H(transport: transport)
        var query = H.authorizationQuery(.apple)
        query = query.map { $0.0 == "scope" ? ("scope", "name") : $0 }
        let fields = H.callbackFields(try await harness.authorize(.apple, query: query))
        let user = try JSONValue.parse(Array(try #require(fields["user"]).utf8))
        #expect(user["name"] != nil)
        #expect(user["email"] == nil)
    }

    @Test(arguments: Transport.available) func issuesVerifiableIDTokenWithStringBooleansAndNonce(transport: Transport)
        async throws
    {
        let harness = try H(transport: transport)
        let (code, _) = try await harness.code(.apple)
        let reply = try await harness.exchange(.apple, code: code)
        #expect(reply.status == 200, "\(reply.text)")
        let body = try reply.json()
        #expect(body["token_type"]?.stringValue == "Bearer")
        #expect(body["expires_in"]?.int64Value == 3600)
        #expect(body["refresh_token"]?.stringValue != nil)
        let idToken = try #require(body["id_token"]?.stringValue)
        let claims = try await harness.verifyIDToken(
            idToken, provider: .apple, audience: H.appleClientID, nonce: "n-0S6_WzA2Mj")
        #expect(claims.subject == "001234.8f14e45fceea167a5a36dedd4bea2543.1021")
        #expect(claims["email_verified"] == .string("true"))
        #expect(claims["is_private_email"] == .string("false"))
        #expect(claims["email"] == .string("alice@example.com"))
        #expect(claims["nonce_supported"] == .bool(true))
        #expect(claims["auth_time"]?.int64Value != nil)
        let issuedAt = try #require(claims.issuedAt)
        #expect(try #require(claims.expiresAt) - issuedAt == 600)
        #expect(claims.issuer == harness.sandbox.issuer(for: .apple))
        #expect(claims.issuer == harness.sandbox.baseURL + "/apple")
        let header = try unverifiedParts(idToken).header
        #expect(header["alg"] == .string("RS256"))
        #expect(header["kid"] == .string("APPLEKEY01"))
    }

    @Test(arguments: Transport.available) func privateRelayIdentityHasStringTrue(transport: Transport) async throws {
        let harness = try H(transport: transport)
        let (code, _) = try await harness.code(.apple, identity: [("identity", "preset-1")])
        let body = try await harness.exchange(.apple, code: code).json()
        let idToken = try #require(body["id_token"]?.stringValue)
        let claims = try await harness.verifyIDToken(idToken, provider: .apple, audience: H.appleClientID)
        #expect(claims["is_private_email"] == .string("true"))
    }

    @Test(arguments: Transport.available) func acceptsAWellFormedClientSecret(transport: Transport) async throws {
        let harness = try H(transport: transport)
        let (code, _) = try await harness.code(.apple)
        let secret = try AppleClientSecret.make(
            teamID: H.teamID, keyID: H.appleKeyID, clientID: H.appleClientID, privateKey: harness.appleClientKey,
            issuedAt: harness.clock.now(), lifetime: AppleClientSecret.maximumLifetime)
        let reply = try await harness.post(
            H.tokenPath(.apple),
            form: [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", H.redirectURI(.apple)),
                ("client_id", H.appleClientID), ("client_secret", secret),
            ])
        #expect(reply.status == 200, "\(reply.text)")
    }

    enum SecretDefect: String, CaseIterable, CustomTestStringConvertible {
        case badSignature, wrongIssuer, wrongSubject, wrongAudience, audienceArrayWithExtra, expired, lifetimeTooLong
        case issuedInFuture, wrongKeyID, missingKeyID, missingExpiry, wrongAlgorithm, notAJWT
        var testDescription: String { rawValue }
    }

    @Test(arguments: Transport.available, SecretDefect.allCases)
    func refusesDefectiveClientSecret(transport: Transport, defect: SecretDefect) async throws {
        let harness = try H(transport: transport)
        let (code, _) = try await harness.code(.apple)
        let now = Int64(harness.clock.now().timeIntervalSince1970)
        let secret: String
        switch defect {
        case .badSignature:
            secret = try harness.appleClientSecret(key: try JWK.generateP256(keyID: H.appleKeyID))
        case .wrongIssuer: secret = try harness.appleClientSecret(claims: ["iss": .string("OTHERTEAM1")])
        case .wrongSubject: secret = try harness.appleClientSecret(claims: ["sub": .string("com.example.other")])
        case .wrongAudience:
            secret = try harness.appleClientSecret(claims: ["aud": .string("https://appleid.apple.co")])
        case .audienceArrayWithExtra:
            secret = try harness.appleClientSecret(
                claims: ["aud": .array([.string("https://appleid.apple.com"), .string("https://evil.example")])])
        case .expired:
            secret = try harness.appleClientSecret(claims: ["iat": .integer(now - 7200), "exp": .integer(now - 1)])
        case .lifetimeTooLong:
            secret = try harness.appleClientSecret(claims: ["iat": .integer(now), "exp": .integer(now + 15_777_001)])
        case .issuedInFuture:
            secret = try harness.appleClientSecret(claims: ["iat": .integer(now + 600), "exp": .integer(now + 1200)])
        case .wrongKeyID: secret = try harness.appleClientSecret(keyID: "OTHERKEY01")
        case .missingKeyID:
            secret = try JWS.sign(
                payload: Array(
                    JSONValue.object([
                        "iss": .string(H.teamID), "sub": .string(H.appleClientID),
                        "aud": .string("https://appleid.apple.com"), "iat": .integer(now), "exp": .integer(now + 60),
                    ]).serialized().utf8), key: try harness.appleClientKey.with(keyID: nil), algorithm: .es256)
        case .missingExpiry: secret = try harness.appleClientSecret(claims: ["exp": JSONValue?.none])
        case .wrongAlgorithm:
            let hmac = try JWK.symmetric(Array(repeating: 7, count: 32), keyID: H.appleKeyID)
            secret = try harness.appleClientSecret(key: hmac, algorithm: .hs256)
        case .notAJWT: secret = "static-secret"
        }
        let reply = try await harness.post(
            H.tokenPath(.apple),
            form: [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", H.redirectURI(.apple)),
                ("client_id", H.appleClientID), ("client_secret", secret),
            ])
        #expect(reply.status == 400)
        #expect(reply.oauthError == "invalid_client", "\(reply.text)")
    }

    @Test(arguments: Transport.available) func refusesClientSecretBasicAndMissingSecret(transport: Transport)
        async throws
    {
        let harness = try H(transport: transport)
        let (code, _) = try await harness.code(.apple)
        let base: [(String, String)] = [
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", H.redirectURI(.apple)),
            ("client_id", H.appleClientID),
        ]
        let basic = try await harness.post(
            H.tokenPath(.apple), form: base,
            headers: H.basic(H.appleClientID, try harness.appleClientSecret()))
        #expect(basic.oauthError == "invalid_client")
        let missing = try await harness.post(H.tokenPath(.apple), form: base)
        #expect(missing.oauthError == "invalid_client")
        // The code was never redeemed by the refused attempts.
        #expect(try await harness.exchange(.apple, code: code).status == 200)
    }

    @Test(arguments: Transport.available) func refreshReturnsNewTokensButNoRefreshToken(transport: Transport)
        async throws
    {
        let harness = try H(transport: transport)
        let (code, _) = try await harness.code(.apple)
        let first = try await harness.exchange(.apple, code: code).json()
        let refreshToken = try #require(first["refresh_token"]?.stringValue)
        for _ in 0..<2 {
            let reply = try await harness.post(
                H.tokenPath(.apple),
                form: [
                    ("grant_type", "refresh_token"), ("refresh_token", refreshToken), ("client_id", H.appleClientID),
                    ("client_secret", try harness.appleClientSecret()),
                ])
            #expect(reply.status == 200, "\(reply.text)")
            let body = try reply.json()
            #expect(body["refresh_token"] == nil)
            #expect(body["access_token"]?.stringValue != first["access_token"]?.stringValue)
            let idToken = try #require(body["id_token"]?.stringValue)
            _ = try await harness.verifyIDToken(idToken, provider: .apple, audience: H.appleClientID)
        }
    }

    @Test(arguments: Transport.available) func revokeAnswers200WhateverTheTokenAndRecordsIt(transport: Transport)
        async throws
    {
        let harness = try H(transport: transport)
        let (code, _) = try await harness.code(.apple)
        let tokens = try await harness.exchange(.apple, code: code).json()
        let refreshToken = try #require(tokens["refresh_token"]?.stringValue)

        for (token, hint) in [("bogus-token", "access_token"), (refreshToken, "refresh_token")] {
            let reply = try await harness.post(
                "/apple/auth/revoke",
                form: [
                    ("client_id", H.appleClientID), ("client_secret", try harness.appleClientSecret()),
                    ("token", token), ("token_type_hint", hint),
                ])
            #expect(reply.status == 200)
        }
        let revocations = harness.sandbox.revocations(for: .apple)
        #expect(revocations.map(\.token) == ["bogus-token", refreshToken])
        #expect(revocations.map(\.kind) == [.unknown, .refreshToken])
        #expect(revocations.last?.clientID == H.appleClientID)

        let refresh = try await harness.post(
            H.tokenPath(.apple),
            form: [
                ("grant_type", "refresh_token"), ("refresh_token", refreshToken), ("client_id", H.appleClientID),
                ("client_secret", try harness.appleClientSecret()),
            ])
        #expect(refresh.oauthError == "invalid_grant")
        // Revoking unlinks the app: the next sign-in sends `user` again.
        let again = H.callbackFields(try await harness.authorize(.apple, query: H.authorizationQuery(.apple)))
        #expect(again["user"] != nil)
    }

    @Test(arguments: Transport.available) func revokeStillAuthenticatesTheClient(transport: Transport) async throws {
        let harness = try H(transport: transport)
        let reply = try await harness.post(
            "/apple/auth/revoke",
            form: [
                ("client_id", H.appleClientID),
                ("client_secret", try harness.appleClientSecret(claims: ["iss": .string("X")])),
                ("token", "t"),
            ])
        #expect(reply.status == 400)
        #expect(reply.oauthError == "invalid_client")
        #expect(harness.sandbox.revocations(for: .apple).isEmpty)
    }

    @Test(arguments: Transport.available) func pkceIsIgnoredUnlessSentThenRequired(transport: Transport) async throws {
        let harness = try H(transport: transport)
        // No challenge: a stray verifier is ignored, as Apple does.
        let (plainCode, _) = try await harness.code(.apple)
        let stray = try await harness.exchange(.apple, code: plainCode, verifier: String(repeating: "a", count: 43))
        #expect(stray.status == 200)

        let pkce = PKCE.generate(random: CountingRandom(seed: 1))
        let (missingCode, _) = try await harness.code(.apple, pkce: pkce)
        let missing = try await harness.exchange(.apple, code: missingCode)
        #expect(missing.oauthError == "invalid_grant")

        let (wrongCode, _) = try await harness.code(.apple, pkce: pkce)
        let wrong = try await harness.exchange(
            .apple, code: wrongCode, verifier: PKCE.generate(random: CountingRandom(seed: 2)).verifier)
        #expect(wrong.oauthError == "invalid_grant")

        let (goodCode, _) = try await harness.code(.apple, pkce: pkce)
        #expect(try await harness.exchange(.apple, code: goodCode, verifier: pkce.verifier).status == 200)
    }

    @Test(arguments: Transport.available) func codeExpiresAfterFiveMinutes(transport: Transport) async throws {
        let harness = try H(transport: transport)
        let (fresh, _) = try await harness.code(.apple)
        harness.clock.advance(by: 299)
        #expect(try await harness.exchange(.apple, code: fresh).status == 200)

        let (stale, _) = try await harness.code(.apple)
        harness.clock.advance(by: 301)
        let reply = try await harness.exchange(.apple, code: stale)
        #expect(reply.oauthError == "invalid_grant")
        #expect(reply.text.contains("expired"))
    }

    @Test(arguments: Transport.available) func codeIsBoundToTheRedirectURI(transport: Transport) async throws {
        let harness = try H(transport: transport)
        let (code, _) = try await harness.code(.apple)
        let reply = try await harness.exchange(.apple, code: code, redirectURI: "https://app.example/other")
        #expect(reply.oauthError == "invalid_grant")
    }

    @Test(arguments: Transport.available) func responseTypeCodeIDTokenDeliversAnIDTokenInTheFormPost(
        transport: Transport
    ) async throws {
        let harness = try H(transport: transport)
        var query = H.authorizationQuery(.apple)
        query = query.map { $0.0 == "response_type" ? ("response_type", "code id_token") : $0 }
        let fields = H.callbackFields(try await harness.authorize(.apple, query: query))
        let idToken = try #require(fields["id_token"])
        let claims = try await harness.verifyIDToken(
            idToken, provider: .apple, audience: H.appleClientID, nonce: "n-0S6_WzA2Mj")
        #expect(claims.subject != nil)
    }

    @Test(arguments: Transport.available) func discoveryDescribesTheSandbox(transport: Transport) async throws {
        let harness = try H(transport: transport)
        let document = try await harness.get("/apple/.well-known/openid-configuration").json()
        #expect(document["issuer"] == .string(harness.sandbox.baseURL + "/apple"))
        #expect(document["token_endpoint"] == .string(harness.sandbox.baseURL + "/apple/auth/token"))
        #expect(document["jwks_uri"] == .string(harness.sandbox.baseURL + "/apple/auth/keys"))
        #expect(document["token_endpoint_auth_methods_supported"] == .array([.string("client_secret_post")]))
        #expect(document["id_token_signing_alg_values_supported"] == .array([.string("RS256")]))
        #expect(harness.sandbox.requestCounts(for: .apple).discovery == 1)
    }
}
