import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowSandbox
import Foundation
import Testing

@Suite("Sandbox identity provider")
struct SandboxIdentityProviderTests {
    typealias H = SandboxHarness

    static func pkce(for provider: SandboxProvider) -> PKCE? {
        provider == .x ? PKCE.generate(random: CountingRandom(seed: 21)) : nil
    }

    @Test(arguments: Transport.available, SandboxProvider.allCases)
    func refusesAReplayedCode(transport: Transport, provider: SandboxProvider) async throws {
        let harness = try H(transport: transport)
        let pkce = Self.pkce(for: provider)
        let (code, _) = try await harness.code(provider, pkce: pkce)
        let first = try await harness.exchange(provider, code: code, verifier: pkce?.verifier)
        #expect(first.status == 200, "\(first.text)")
        let replay = try await harness.exchange(provider, code: code, verifier: pkce?.verifier)
        #expect(replay.status == (provider == .github ? 200 : 400))  // GitHub answers errors with 200
        if provider == .github {
            #expect(replay.oauthError == "bad_verification_code")
        } else if provider == .facebook {
            #expect(try replay.json()["error"]?["error_subcode"] == .integer(36_009))
        } else {
            #expect(replay.oauthError == "invalid_grant")
        }
    }

    @Test(arguments: Transport.available, [SandboxProvider.google, .facebook, .x])
    func replayRevokesTheTokensIssuedFromTheCode(transport: Transport, provider: SandboxProvider) async throws {
        let harness = try H(transport: transport)
        let pkce = Self.pkce(for: provider)
        let (code, _) = try await harness.code(provider, pkce: pkce)
        let accessToken = try #require(
            try await harness.exchange(provider, code: code, verifier: pkce?.verifier).json()["access_token"]?
                .stringValue)
        _ = try await harness.exchange(provider, code: code, verifier: pkce?.verifier)
        let userinfo: Reply
        switch provider {
        case .google:
            userinfo = try await harness.get("/google/v1/userinfo", headers: ["Authorization": "Bearer " + accessToken])
        case .facebook:
            userinfo = try await harness.get(
                "/facebook/me",
                [("access_token", accessToken), ("appsecret_proof", FacebookEmulatorTests.proof(accessToken))])
        default:
            userinfo = try await harness.get("/x/2/users/me", headers: ["Authorization": "Bearer " + accessToken])
        }
        #expect(userinfo.status == 400 || userinfo.status == 401)
    }

    @Test(arguments: Transport.available, SandboxProvider.allCases)
    func cancelAtTheConsentPageGivesAccessDenied(transport: Transport, provider: SandboxProvider) async throws {
        let harness = try H(transport: transport)
        let reply = try await harness.authorize(
            provider, query: H.authorizationQuery(provider, pkce: Self.pkce(for: provider)), decision: "cancel")
        if provider == .apple {
            #expect(reply.status == 200)  // the form_post page
        } else {
            #expect(reply.status == 302)
        }
        let fields = H.callbackFields(reply)
        #expect(fields["error"] == "access_denied")
        #expect(fields["state"] == "st-123")
        #expect(fields["code"] == nil)
    }

    @Test(arguments: Transport.available) func consentTicketIsSingleUseAndBoundToItsProvider(transport: Transport)
        async throws
    {
        let harness = try H(transport: transport)
        let ticket = try await harness.consentTicket(.google, query: H.authorizationQuery(.google))
        let wrongProvider = try await harness.post(
            "/facebook/consent", form: [("ticket", ticket), ("decision", "allow"), ("identity", "preset-0")])
        #expect(wrongProvider.status == 400)
        // Taken by the wrong provider's endpoint: the ticket is gone.
        let afterMisuse = try await harness.post(
            "/google/consent", form: [("ticket", ticket), ("decision", "allow"), ("identity", "preset-0")])
        #expect(afterMisuse.status == 400)

        let fresh = try await harness.consentTicket(.google, query: H.authorizationQuery(.google))
        let first = try await harness.post(
            "/google/consent", form: [("ticket", fresh), ("decision", "allow"), ("identity", "preset-0")])
        #expect(first.status == 302)
        let second = try await harness.post(
            "/google/consent", form: [("ticket", fresh), ("decision", "allow"), ("identity", "preset-0")])
        #expect(second.status == 400)
        #expect(second.location == nil)
    }

    @Test(arguments: Transport.available) func consentTicketExpires(transport: Transport) async throws {
        let harness = try H(transport: transport)
        let ticket = try await harness.consentTicket(.google, query: H.authorizationQuery(.google))
        harness.clock.advance(by: 601)
        let reply = try await harness.post(
            "/google/consent", form: [("ticket", ticket), ("decision", "allow"), ("identity", "preset-0")])
        #expect(reply.status == 400)
        #expect(reply.text.contains("expired"))
    }

    @Test(arguments: Transport.available) func typedIdentityIsUsedVerbatim(transport: Transport) async throws {
        let harness = try H(transport: transport)
        let (code, _) = try await harness.code(
            .google,
            identity: [
                ("identity", "custom"), ("subject", "custom-sub-42"), ("email", "typed@example.net"),
                ("name", "Typed Person"),
            ])
        let body = try await harness.exchange(.google, code: code).json()
        let claims = try await harness.verifyIDToken(
            try #require(body["id_token"]?.stringValue), provider: .google, audience: H.googleClientID)
        #expect(claims.subject == "custom-sub-42")
        #expect(claims["email"] == .string("typed@example.net"))
        #expect(claims["email_verified"] == .bool(false))  // the box was not ticked
        #expect(claims["given_name"] == .string("Typed"))
    }

    @Test(arguments: Transport.available) func refusesMalformedTypedIdentity(transport: Transport) async throws {
        let harness = try H(transport: transport)
        for identity in [
            [("identity", "custom")], [("identity", "custom"), ("subject", "s"), ("email", "no-at-sign")],
            [("identity", "preset-99")], [("identity", "custom"), ("subject", "a\u{1}b")],
        ] {
            let reply = try await harness.authorize(.google, query: H.authorizationQuery(.google), identity: identity)
            #expect(reply.status == 400)
            #expect(reply.location == nil)
        }
    }

    @Test(arguments: Transport.available) func consentPageEscapesEverythingItEchoes(transport: Transport) async throws {
        let harness = try H(transport: transport)
        let odd = "https://app.example/cb?x=<script>&y=\"'"
        try harness.sandbox.register(.google(clientID: "<b>client</b>", clientSecret: "s", redirectURIs: [odd]))
        let page = try await harness.get(
            H.authorizePath(.google),
            [("client_id", "<b>client</b>"), ("redirect_uri", odd), ("response_type", "code"), ("scope", "openid")])
        #expect(page.status == 200)
        #expect(!page.text.contains("<b>client"))
        #expect(!page.text.contains("<script>"))
        #expect(page.text.contains("&lt;b&gt;client&lt;/b&gt;"))
        #expect(page.headers["X-Frame-Options"] == "DENY")
    }

    @Test(arguments: Transport.available) func refusesRepeatedParameters(transport: Transport) async throws {
        let harness = try H(transport: transport)
        let reply = try await harness.get(
            H.authorizePath(.google), H.authorizationQuery(.google) + [("redirect_uri", "https://evil.example/cb")])
        #expect(reply.status == 400)
        #expect(reply.text.contains("more than once"))
    }

    @Test(arguments: Transport.available) func unknownPathsAndMethodsAreRefused(transport: Transport) async throws {
        let harness = try H(transport: transport)
        #expect(try await harness.get("/nowhere").status == 404)
        #expect(try await harness.get("/google/nowhere").status == 404)
        let wrongMethod = try await harness.get("/google/token")
        #expect(wrongMethod.status == 405)
        #expect(wrongMethod.headers["Allow"] == "POST")
        #expect(try await harness.post("/apple/auth/keys", form: []).status == 405)
    }

    @Test(arguments: Transport.available, [SandboxProvider.apple, .google, .facebook])
    func keyRotationChangesTheKidInTheJWKS(transport: Transport, provider: SandboxProvider) async throws {
        let harness = try H(transport: transport)
        let path = try #require(harness.sandbox.endpoints(for: provider).jwks).replacingOccurrences(
            of: harness.sandbox.baseURL, with: "")
        let before = try await harness.get(path).json()["keys"]?.arrayValue?.compactMap { $0["kid"]?.stringValue }
        let newKid = try harness.sandbox.rotateSigningKey(for: provider)
        let after = try await harness.get(path).json()["keys"]?.arrayValue?.compactMap { $0["kid"]?.stringValue }
        let oldKid = try #require(before?.first)
        #expect(newKid != oldKid)
        #expect(after == [newKid, oldKid])

        try harness.sandbox.rotateSigningKey(for: provider, keepPrevious: false)
        let abrupt = try await harness.get(path).json()["keys"]?.arrayValue ?? []
        #expect(abrupt.count == 1)
        #expect(abrupt.first?["kid"]?.stringValue != newKid)
    }

    @Test(arguments: Transport.available) func tokensAfterRotationAreSignedWithTheNewKey(transport: Transport)
        async throws
    {
        let harness = try H(transport: transport)
        let newKid = try harness.sandbox.rotateSigningKey(for: .google)
        #expect(newKid.count == 40)
        let (code, _) = try await harness.code(.google)
        let idToken = try #require(try await harness.exchange(.google, code: code).json()["id_token"]?.stringValue)
        #expect(try unverifiedParts(idToken).header["kid"] == .string(newKid))
        _ = try await harness.verifyIDToken(idToken, provider: .google, audience: H.googleClientID)
    }

    @Test(arguments: Transport.available) func rotationIsRefusedForX(transport: Transport) async throws {
        let harness = try H(transport: transport)
        #expect(throws: SandboxError.self) { try harness.sandbox.rotateSigningKey(for: .x) }
    }

    @Test(arguments: Transport.available) func autoConsentSkipsThePage(transport: Transport) async throws {
        let harness = try H(transport: transport)
        let identity = SandboxIdentity(subject: "auto-1", email: "auto@example.com", givenName: "Auto")
        harness.sandbox.setAutoConsent(identity, for: .google)
        let reply = try await harness.get(H.authorizePath(.google), H.authorizationQuery(.google))
        #expect(reply.status == 302)
        let code = try #require(H.callbackFields(reply)["code"])
        let idToken = try #require(try await harness.exchange(.google, code: code).json()["id_token"]?.stringValue)
        #expect(try unverifiedParts(idToken).payload["sub"] == .string("auto-1"))
        // Validation still applies.
        let bad = try await harness.get(H.authorizePath(.google), [("client_id", "nobody")])
        #expect(bad.status == 401)
    }

    @Test func endpointsAndIssuersFollowTheBaseURLOrOverride() throws {
        let sandbox = SandboxIdentityProvider(
            configuration: SandboxConfiguration(
                publicBaseURL: "http://idp.test:8081/", issuerOverrides: [.google: "https://accounts.google.com"]))
        #expect(sandbox.baseURL == "http://idp.test:8081")
        #expect(sandbox.issuer(for: .apple) == "http://idp.test:8081/apple")
        #expect(sandbox.issuer(for: .google) == "https://accounts.google.com")
        #expect(sandbox.issuer(for: .x) == nil)
        let apple = sandbox.endpoints(for: .apple)
        #expect(apple.authorization == "http://idp.test:8081/apple/auth/authorize")
        #expect(apple.revocation == "http://idp.test:8081/apple/auth/revoke")
        #expect(apple.userinfo == nil)
        let x = sandbox.endpoints(for: .x)
        #expect(x.token == "http://idp.test:8081/x/2/oauth2/token")
        #expect(x.jwks == nil)
        #expect(sandbox.endpoints(for: .facebook).token == "http://idp.test:8081/facebook/v19.0/oauth/access_token")
    }

    @Test func registrationRefusesIncompleteClients() throws {
        let sandbox = SandboxIdentityProvider(configuration: SandboxConfiguration(publicBaseURL: "http://s.test"))
        let ok = ["https://app.example/cb"]
        let rsa = try #require(try H.sharedKeys.get()[.google])
        let invalid: [SandboxClient] = [
            .google(clientID: "", clientSecret: "s", redirectURIs: ok),
            .google(clientID: "g", clientSecret: "", redirectURIs: ok),
            .google(clientID: "g", clientSecret: "s", redirectURIs: []),
            .google(clientID: "g", clientSecret: "s", redirectURIs: ["https://app.example/cb#frag"]),
            .facebook(clientID: "f", clientSecret: "s", redirectURIs: ["/relative"]),
            .x(clientID: "x", clientSecret: "", redirectURIs: ok),
            .apple(clientID: "a", teamID: "T", keyID: "K", publicKey: rsa, redirectURIs: ok),
            .apple(
                clientID: "a", teamID: "", keyID: "K", publicKey: try H.sharedAppleClientKey.get(), redirectURIs: ok),
        ]
        for client in invalid {
            #expect(throws: SandboxError.self) { try sandbox.register(client) }
        }
        #expect(sandbox.client(.google, clientID: "g") == nil)
    }

    @Test func generatedAppleClientKeyHasATenCharacterKeyID() throws {
        let sandbox = SandboxIdentityProvider(configuration: SandboxConfiguration(publicBaseURL: "http://s.test"))
        let key = try sandbox.generateAppleClientKey()
        #expect(key.keyType == "EC")
        #expect(key.isPrivate)
        #expect(key.keyID?.count == 10)
    }

    @Test(arguments: Transport.available) func unregisteringAClientStopsItsTokens(transport: Transport) async throws {
        let harness = try H(transport: transport)
        let (code, _) = try await harness.code(.google)
        let accessToken = try #require(
            try await harness.exchange(.google, code: code).json()["access_token"]?.stringValue)
        harness.sandbox.unregister(.google, clientID: H.googleClientID)
        let reply = try await harness.get("/google/v1/userinfo", headers: ["Authorization": "Bearer " + accessToken])
        #expect(reply.status == 401)
    }

    @Test(arguments: Transport.available) func indexListsEveryProvider(transport: Transport) async throws {
        let harness = try H(transport: transport)
        let index = try await harness.get("/").json()
        for provider in SandboxProvider.allCases {
            #expect(index["providers"]?[provider.rawValue]?["authorization_endpoint"] != nil)
        }
    }
}
