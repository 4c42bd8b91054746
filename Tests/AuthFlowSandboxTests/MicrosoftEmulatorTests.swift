import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowSandbox
import Foundation
import Testing

@Suite("Microsoft emulator")
struct MicrosoftEmulatorTests {
    typealias H = SandboxHarness
    static let contoso = SandboxMicrosoftTenant.contoso.id
    static let fabrikam = SandboxMicrosoftTenant.fabrikam.id
    static let personal = SandboxMicrosoftTenant.personalAccounts.id
    static let template = "/microsoft/{tenantid}/v2.0"

    /// Keys for `private_key_jwt` assertions, generated once (RSA generation is slow).
    static let assertionKeys: Result<(ec: JWK, rsa: JWK, other: JWK), JOSEError> = Result { () throws(JOSEError) in
        (
            try JWK.generateP256(keyID: "assert-ec"), try JWK.generateRSA(bits: 2048, keyID: "assert-rsa"),
            try JWK.generateP256(keyID: "assert-ec")
        )
    }

    // MARK: - Helpers

    /// Opens `/microsoft/{authority}/oauth2/v2.0/authorize` and approves as `identity` on the consent page.
    static func authorize(
        _ harness: H, authority: String = "common", query: [(String, String)]? = nil,
        clientID: String = H.microsoftClientID,
        identity: [(String, String)] = [("identity", "preset-0")]
    ) async throws -> Reply {
        var parameters = query ?? H.authorizationQuery(.microsoft)
        if clientID != H.microsoftClientID {
            parameters = parameters.map { $0.0 == "client_id" ? ($0.0, clientID) : $0 }
        }
        let page = try await harness.get("/microsoft/\(authority)/oauth2/v2.0/authorize", parameters)
        #expect(page.status == 200, "consent page expected, got \(page.status): \(page.text)")
        let ticket = try #require(H.hiddenField("ticket", in: page.text))
        return try await harness.post(
            "/microsoft/consent", form: [("ticket", ticket), ("decision", "allow")] + identity)
    }

    static func code(
        _ harness: H, authority: String = "common", query: [(String, String)]? = nil,
        clientID: String = H.microsoftClientID,
        identity: [(String, String)] = [("identity", "preset-0")]
    ) async throws -> String {
        let reply = try await authorize(
            harness, authority: authority, query: query, clientID: clientID, identity: identity)
        let fields = H.callbackFields(reply)
        return try #require(fields["code"], "no code in \(reply.status) \(reply.location ?? reply.text)")
    }

    static func tokenPath(_ authority: String = "common") -> String { "/microsoft/\(authority)/oauth2/v2.0/token" }

    static func exchange(
        _ harness: H, code: String, authority: String = "common", verifier: String? = nil,
        credentials: [(String, String)] = [("client_id", H.microsoftClientID), ("client_secret", H.secret)],
        headers: HTTPHeaders = [:]
    ) async throws -> Reply {
        var form: [(String, String)] = [
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", H.redirectURI(.microsoft)),
        ]
        if let verifier { form.append(("code_verifier", verifier)) }
        return try await harness.post(tokenPath(authority), form: form + credentials, headers: headers)
    }

    /// Signs in through `authority` and returns the verified id_token claims and the token response.
    static func signIn(
        _ harness: H, authority: String = "common", identity: [(String, String)] = [("identity", "preset-0")]
    ) async throws -> (claims: JWTClaims, body: JSONValue, idToken: String) {
        let code = try await code(harness, authority: authority, identity: identity)
        let reply = try await exchange(harness, code: code, authority: authority)
        #expect(reply.status == 200, "\(reply.text)")
        let body = try reply.json()
        let idToken = try #require(body["id_token"]?.stringValue)
        let keys = try JWKSet(jsonData: try await harness.get("/microsoft/\(authority)/discovery/v2.0/keys").body)
        let unverified = try unverifiedParts(idToken).payload
        let issuer = try #require(unverified["iss"]?.stringValue)
        let claims = try JWTVerifier(
            allowedAlgorithms: [.rs256],
            checks: ClaimChecks(issuers: [issuer], audiences: [H.microsoftClientID], nonce: "n-0S6_WzA2Mj")
        ).verify(idToken, keys: keys, now: harness.clock.now())
        return (claims, body, idToken)
    }

    /// A `private_key_jwt` assertion for `clientID`, with claims overridden or removed.
    static func assertion(
        _ harness: H, clientID: String, key: JWK, algorithm: JWSAlgorithm = .es256,
        audience: String? = nil, overrides: [String: JSONValue?] = [:]
    ) throws -> String {
        let now = Int64(harness.clock.now().timeIntervalSince1970)
        var claims: [String: JSONValue] = [
            "iss": .string(clientID), "sub": .string(clientID),
            "aud": .string(audience ?? harness.sandbox.baseURL + tokenPath()), "iat": .integer(now),
            "nbf": .integer(now), "exp": .integer(now + 300), "jti": .string(UUID().uuidString),
        ]
        for (name, value) in overrides { claims[name] = value }
        return try JWS.sign(payload: Array(JSONValue.object(claims).serialized().utf8), key: key, algorithm: algorithm)
    }

    static func assertionCredentials(_ clientID: String, _ assertion: String) -> [(String, String)] {
        [
            ("client_id", clientID),
            ("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"),
            ("client_assertion", assertion),
        ]
    }

    // MARK: - Discovery and keys

    @Test(arguments: Transport.available) func tenantDiscoveryNamesTheTenantIssuerAndEndpoints(transport: Transport)
        async throws
    {
        let harness = try H(transport: transport)
        let base = harness.sandbox.baseURL
        let document = try await harness.get("/microsoft/\(Self.contoso)/v2.0/.well-known/openid-configuration").json()
        #expect(document["issuer"] == .string("\(base)/microsoft/\(Self.contoso)/v2.0"))
        #expect(
            document["authorization_endpoint"] == .string("\(base)/microsoft/\(Self.contoso)/oauth2/v2.0/authorize"))
        #expect(document["token_endpoint"] == .string("\(base)/microsoft/\(Self.contoso)/oauth2/v2.0/token"))
        #expect(document["end_session_endpoint"] == .string("\(base)/microsoft/\(Self.contoso)/oauth2/v2.0/logout"))
        #expect(document["jwks_uri"] == .string("\(base)/microsoft/\(Self.contoso)/discovery/v2.0/keys"))
        #expect(
            document["token_endpoint_auth_methods_supported"]
                == .array(["client_secret_post", "private_key_jwt", "client_secret_basic"].map(JSONValue.string)))
        #expect(document["code_challenge_methods_supported"] == nil)  // Entra does not advertise PKCE
        #expect(harness.sandbox.microsoftEndpoints(tenant: Self.contoso).issuer == document["issuer"]?.stringValue)
    }

    @Test(arguments: ["common", "organizations", "consumers", SandboxMicrosoftTenant.personalAccounts.id])
    func multiTenantDiscoveryHasTheTemplateIssuer(authority: String) async throws {
        let harness = try H()
        let document = try await harness.get("/microsoft/\(authority)/v2.0/.well-known/openid-configuration").json()
        #expect(document["issuer"] == .string(harness.sandbox.baseURL + Self.template))
        #expect(harness.sandbox.issuer(for: .microsoft) == harness.sandbox.baseURL + Self.template)
    }

    @Test func unknownTenantIsRefused() async throws {
        let harness = try H()
        let unknown = "0f0f0f0f-1111-4222-8333-444455556666"
        let discovery = try await harness.get("/microsoft/\(unknown)/v2.0/.well-known/openid-configuration")
        #expect(discovery.status == 400)
        #expect(discovery.oauthError == "invalid_tenant")
        #expect(try discovery.json()["error_codes"] == .array([.integer(90002)]))
        let authorize = try await harness.get(
            "/microsoft/\(unknown)/oauth2/v2.0/authorize", H.authorizationQuery(.microsoft))
        #expect(authorize.status == 400)
        #expect(authorize.text.contains("AADSTS90002"))
    }

    @Test func jwksKeysHaveNoAlgButAnIssuer() async throws {
        let harness = try H()
        let common = try #require(
            try await harness.get("/microsoft/common/discovery/v2.0/keys").json()["keys"]?.arrayValue)
        #expect(common.count == 1)
        #expect(common[0]["alg"] == nil)
        #expect(common[0]["kid"] == .string("ms-key-1"))
        #expect(common[0]["d"] == nil)
        #expect(common[0]["issuer"] == .string(harness.sandbox.baseURL + Self.template))
        let tenant = try #require(
            try await harness.get("/microsoft/\(Self.fabrikam)/discovery/v2.0/keys").json()["keys"]?.arrayValue)
        #expect(tenant[0]["issuer"] == .string(harness.sandbox.microsoftIssuer(tenantID: Self.fabrikam)))
    }

    // MARK: - Claims and tenants

    @Test(arguments: Transport.available) func idTokenCarriesTenantObjectGroupsRolesAndVerifiedEmail(
        transport: Transport
    ) async throws {
        let harness = try H(transport: transport)
        let (claims, body, _) = try await Self.signIn(harness)
        let alice = SandboxIdentity.presets(for: .microsoft)[0]
        #expect(claims.issuer == harness.sandbox.baseURL + "/microsoft/\(Self.contoso)/v2.0")
        #expect(claims.subject == alice.subject)
        #expect(claims["tid"] == .string(Self.contoso))
        #expect(claims["oid"] == .string(try #require(alice.objectID)))
        #expect(claims["ver"] == .string("2.0"))
        #expect(claims["email"] == .string("alice@contoso.example"))
        #expect(claims["xms_edov"] == .bool(true))
        #expect(claims["verified_primary_email"] == .array([.string("alice@contoso.example")]))
        #expect(claims["groups"] == .array(alice.groups.map(JSONValue.string)))
        #expect(claims["roles"] == .array([.string("Admin")]))
        #expect(body["token_type"] == .string("Bearer"))
        #expect(body["refresh_token"] != nil)  // offline_access
    }

    @Test func unverifiedEmailHasNoVerificationClaims() async throws {
        let harness = try H()
        let (claims, _, _) = try await Self.signIn(harness, identity: [("identity", "preset-1")])
        #expect(claims["tid"] == .string(Self.fabrikam))
        #expect(claims["email"] == .string("bob@fabrikam.example"))
        #expect(claims["xms_edov"] == nil)
        #expect(claims["verified_primary_email"] == nil)
        #expect(claims["groups"] == nil)
    }

    @Test func aTenantAuthorityIssuesItsOwnTenantToAGuest() async throws {
        let harness = try H()
        let (claims, _, _) = try await Self.signIn(harness, authority: Self.fabrikam)
        let alice = SandboxIdentity.presets(for: .microsoft)[0]
        #expect(claims.issuer == harness.sandbox.microsoftIssuer(tenantID: Self.fabrikam))
        #expect(claims["tid"] == .string(Self.fabrikam))
        #expect(claims["oid"] != nil)
        #expect(claims["oid"] != .string(try #require(alice.objectID)))  // another object in the other tenant
    }

    @Test func organizationsRefusesPersonalAccountsAndConsumersRefusesWorkAccounts() async throws {
        let harness = try H()
        let organizations = H.callbackFields(
            try await Self.authorize(harness, authority: "organizations", identity: [("identity", "preset-2")]))
        #expect(organizations["error"] == "access_denied")
        #expect(organizations["code"] == nil)
        #expect(organizations["state"] == "st-123")
        let consumers = H.callbackFields(
            try await Self.authorize(harness, authority: "consumers", identity: [("identity", "preset-0")]))
        #expect(consumers["error"] == "access_denied")
        let (claims, _, _) = try await Self.signIn(
            harness, authority: "consumers", identity: [("identity", "preset-2")])
        #expect(claims["tid"] == .string(Self.personal))
        #expect(claims.issuer == harness.sandbox.microsoftIssuer(tenantID: Self.personal))
    }

    @Test func issuerTenantHookSignsATokenWhoseIssDoesNotMatchItsTid() async throws {
        let harness = try H()
        let typed: [(String, String)] = [
            ("identity", "custom"), ("subject", "mallory-sub"), ("email", "victim@contoso.example"),
            ("tenant_id", Self.fabrikam), ("issuer_tenant_id", Self.contoso), ("email_verified", "true"),
        ]
        let (claims, _, _) = try await Self.signIn(harness, identity: typed)
        #expect(claims["tid"] == .string(Self.fabrikam))
        #expect(claims.issuer == harness.sandbox.microsoftIssuer(tenantID: Self.contoso))

        // The same hook through auto-consent, for headless tests.
        harness.sandbox.setAutoConsent(
            SandboxIdentity(subject: "auto", tenantID: Self.contoso, issuerTenantID: Self.fabrikam), for: .microsoft)
        let reply = try await harness.get(
            "/microsoft/common/oauth2/v2.0/authorize", H.authorizationQuery(.microsoft))
        let code = try #require(H.callbackFields(reply)["code"])
        let idToken = try #require(try await Self.exchange(harness, code: code).json()["id_token"]?.stringValue)
        let payload = try unverifiedParts(idToken).payload
        #expect(payload["tid"] == .string(Self.contoso))
        #expect(payload["iss"] == .string(harness.sandbox.microsoftIssuer(tenantID: Self.fabrikam)))
    }

    @Test func typedIdentityWithAnUnknownTenantIsRefused() async throws {
        let harness = try H()
        let reply = try await Self.authorize(
            harness,
            identity: [("identity", "custom"), ("subject", "s"), ("tenant_id", "0f0f0f0f-1111-4222-8333-444455556666")])
        #expect(reply.status == 400)
        #expect(H.callbackFields(reply)["code"] == nil)
    }

    // MARK: - Token endpoint strictness

    @Test(arguments: Transport.available) func pkceS256IsEnforced(transport: Transport) async throws {
        let harness = try H(transport: transport)
        let pkce = PKCE.generate(random: CountingRandom(seed: 31))
        let query = H.authorizationQuery(.microsoft, pkce: pkce)
        let good = try await Self.exchange(
            harness, code: try await Self.code(harness, query: query), verifier: pkce.verifier)
        #expect(good.status == 200, "\(good.text)")

        let wrong = try await Self.exchange(
            harness, code: try await Self.code(harness, query: query), verifier: String(repeating: "w", count: 43))
        #expect(wrong.status == 400)
        #expect(wrong.oauthError == "invalid_grant")

        let missing = try await Self.exchange(harness, code: try await Self.code(harness, query: query))
        #expect(missing.oauthError == "invalid_grant")

        let unexpected = try await Self.exchange(
            harness, code: try await Self.code(harness), verifier: pkce.verifier)
        #expect(unexpected.oauthError == "invalid_grant")
    }

    @Test func redirectURIMustBeExact() async throws {
        let harness = try H()
        var mismatched = H.authorizationQuery(.microsoft)
        mismatched = mismatched.map { $0.0 == "redirect_uri" ? ($0.0, H.redirectURI(.microsoft) + "/") : $0 }
        let page = try await harness.get("/microsoft/common/oauth2/v2.0/authorize", mismatched)
        #expect(page.status == 400)
        #expect(page.text.contains("AADSTS50011"))

        let code = try await Self.code(harness)
        let reply = try await harness.post(
            Self.tokenPath(),
            form: [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", "https://app.example/other"),
                ("client_id", H.microsoftClientID), ("client_secret", H.secret),
            ])
        #expect(reply.oauthError == "invalid_grant")
        let missing = try await harness.post(
            Self.tokenPath(),
            form: [
                ("grant_type", "authorization_code"), ("code", try await Self.code(harness)),
                ("client_id", H.microsoftClientID), ("client_secret", H.secret),
            ])
        #expect(missing.oauthError == "invalid_request")
    }

    @Test func codeIsSingleUseAndBoundToItsAuthority() async throws {
        let harness = try H()
        let code = try await Self.code(harness)
        #expect(try await Self.exchange(harness, code: code).status == 200)
        let replay = try await Self.exchange(harness, code: code)
        #expect(replay.status == 400)
        #expect(replay.oauthError == "invalid_grant")

        let other = try await Self.code(harness, authority: "organizations")
        let elsewhere = try await Self.exchange(harness, code: other, authority: Self.contoso)
        #expect(elsewhere.oauthError == "invalid_grant")
        #expect(try elsewhere.json()["error_codes"] == .array([.integer(50148)]))
    }

    @Test func codeExpiresAfterTenMinutes() async throws {
        let harness = try H()
        let code = try await Self.code(harness)
        harness.clock.advance(by: 601)
        #expect(try await Self.exchange(harness, code: code).oauthError == "invalid_grant")
    }

    @Test func clientSecretBasicAndPostAreBothAcceptedWithoutARestriction() async throws {
        let harness = try H()
        let post = try await Self.exchange(harness, code: try await Self.code(harness))
        #expect(post.status == 200)
        let basic = try await Self.exchange(
            harness, code: try await Self.code(harness), credentials: [],
            headers: H.basic(H.microsoftClientID, H.secret))
        #expect(basic.status == 200, "\(basic.text)")
    }

    @Test func wrongSecretMissingCredentialsAndTwoMethodsAreRefused() async throws {
        let harness = try H()
        let wrong = try await Self.exchange(
            harness, code: try await Self.code(harness),
            credentials: [("client_id", H.microsoftClientID), ("client_secret", "nope")])
        #expect(wrong.status == 401)
        #expect(wrong.oauthError == "invalid_client")
        let none = try await Self.exchange(
            harness, code: try await Self.code(harness), credentials: [("client_id", H.microsoftClientID)])
        #expect(none.oauthError == "invalid_client")
        let both = try await Self.exchange(
            harness, code: try await Self.code(harness),
            credentials: [("client_secret", H.secret)], headers: H.basic(H.microsoftClientID, H.secret))
        #expect(both.oauthError == "invalid_request")
        let unknown = try await Self.exchange(
            harness, code: try await Self.code(harness), credentials: [("client_id", "nobody"), ("client_secret", "x")])
        #expect(unknown.oauthError == "invalid_client")
    }

    @Test(arguments: SandboxClient.AuthMethod.allCases)
    func aClientRegisteredForOneMethodIsRefusedEveryOther(method: SandboxClient.AuthMethod) async throws {
        let harness = try H()
        let keys = try Self.assertionKeys.get()
        let clientID = "only-\(method.rawValue)"
        try harness.sandbox.register(
            .microsoft(
                clientID: clientID,
                clientSecret: method == .clientSecretBasic || method == .clientSecretPost ? H.secret : nil,
                redirectURIs: [H.redirectURI(.microsoft)], authMethod: method,
                assertionKeys: method == .privateKeyJWT ? [keys.ec] : []))
        let attempts: [SandboxClient.AuthMethod: (credentials: [(String, String)], headers: HTTPHeaders)] = [
            .clientSecretBasic: ([], H.basic(clientID, H.secret)),
            .clientSecretPost: ([("client_id", clientID), ("client_secret", H.secret)], [:]),
            .privateKeyJWT: (
                Self.assertionCredentials(clientID, try Self.assertion(harness, clientID: clientID, key: keys.ec)), [:]
            ),
            .none: ([("client_id", clientID)], [:]),
        ]
        for (used, attempt) in attempts {
            let code = try await Self.code(harness, clientID: clientID)
            let reply = try await Self.exchange(
                harness, code: code, credentials: attempt.credentials, headers: attempt.headers)
            if used == method {
                #expect(reply.status == 200, "\(method) with its own method: \(reply.text)")
            } else {
                #expect(reply.status == 401, "\(method) with \(used): \(reply.text)")
                #expect(reply.oauthError == "invalid_client")
            }
        }
    }

    @Test(arguments: [JWSAlgorithm.es256, .rs256, .ps256])
    func privateKeyJWTIsAcceptedSignedWithARegisteredKey(algorithm: JWSAlgorithm) async throws {
        let harness = try H()
        let keys = try Self.assertionKeys.get()
        try harness.sandbox.register(
            .microsoft(
                clientID: "pkjwt", clientSecret: nil, redirectURIs: [H.redirectURI(.microsoft)],
                assertionKeys: [keys.ec, keys.rsa]))
        let key = algorithm == .es256 ? keys.ec : keys.rsa
        let assertion = try Self.assertion(harness, clientID: "pkjwt", key: key, algorithm: algorithm)
        let reply = try await Self.exchange(
            harness, code: try await Self.code(harness, clientID: "pkjwt"),
            credentials: Self.assertionCredentials("pkjwt", assertion))
        #expect(reply.status == 200, "\(reply.text)")
        // The same assertion again: its jti is spent.
        let replay = try await Self.exchange(
            harness, code: try await Self.code(harness, clientID: "pkjwt"),
            credentials: Self.assertionCredentials("pkjwt", assertion))
        #expect(replay.oauthError == "invalid_client")
        #expect(replay.text.contains("jti"))
    }

    enum AssertionDefect: String, CaseIterable, Sendable {
        case wrongIssuer, wrongSubject, wrongAudience, expired, tooLong, noExpiry, noJTI, futureNotBefore,
            unregisteredKey, hmac, wrongAssertionType
    }

    @Test(arguments: AssertionDefect.allCases)
    func privateKeyJWTDefectsAreRefused(defect: AssertionDefect) async throws {
        let harness = try H()
        let keys = try Self.assertionKeys.get()
        try harness.sandbox.register(
            .microsoft(
                clientID: "pkjwt", clientSecret: nil, redirectURIs: [H.redirectURI(.microsoft)],
                assertionKeys: [keys.ec]))
        let now = Int64(harness.clock.now().timeIntervalSince1970)
        var credentials: [(String, String)]
        func make(_ overrides: [String: JSONValue?] = [:], key: JWK = keys.ec, audience: String? = nil) throws -> String
        {
            try Self.assertion(harness, clientID: "pkjwt", key: key, audience: audience, overrides: overrides)
        }
        switch defect {
        case .wrongIssuer: credentials = Self.assertionCredentials("pkjwt", try make(["iss": .string("other")]))
        case .wrongSubject: credentials = Self.assertionCredentials("pkjwt", try make(["sub": .string("other")]))
        case .wrongAudience:
            credentials = Self.assertionCredentials(
                "pkjwt", try make(audience: harness.sandbox.baseURL + Self.tokenPath(Self.contoso)))
        case .expired: credentials = Self.assertionCredentials("pkjwt", try make(["exp": .integer(now - 1)]))
        case .tooLong: credentials = Self.assertionCredentials("pkjwt", try make(["exp": .integer(now + 3600)]))
        case .noExpiry: credentials = Self.assertionCredentials("pkjwt", try make(["exp": nil]))
        case .noJTI: credentials = Self.assertionCredentials("pkjwt", try make(["jti": nil]))
        case .futureNotBefore: credentials = Self.assertionCredentials("pkjwt", try make(["nbf": .integer(now + 600)]))
        case .unregisteredKey: credentials = Self.assertionCredentials("pkjwt", try make(key: keys.other))
        case .hmac:
            let secretKey = try JWK.symmetric(Array(repeating: 7, count: 32), keyID: "assert-ec")
            let token = try JWS.sign(
                payload: Array(
                    JSONValue.object([
                        "iss": .string("pkjwt"), "sub": .string("pkjwt"),
                        "aud": .string(harness.sandbox.baseURL + Self.tokenPath()), "exp": .integer(now + 300),
                        "jti": .string("j"),
                    ]).serialized().utf8), key: secretKey, algorithm: .hs256)
            credentials = Self.assertionCredentials("pkjwt", token)
        case .wrongAssertionType:
            credentials = Self.assertionCredentials("pkjwt", try make()).map {
                $0.0 == "client_assertion_type"
                    ? ($0.0, "urn:ietf:params:oauth:client-assertion-type:saml2-bearer") : $0
            }
        }
        let reply = try await Self.exchange(
            harness, code: try await Self.code(harness, clientID: "pkjwt"), credentials: credentials)
        #expect(reply.status == 401, "\(defect): \(reply.text)")
        #expect(reply.oauthError == "invalid_client")
    }

    @Test func aPublicClientAuthenticatesWithItsIDOnly() async throws {
        let harness = try H()
        try harness.sandbox.register(
            .microsoft(clientID: "public-app", clientSecret: nil, redirectURIs: [H.redirectURI(.microsoft)]))
        let pkce = PKCE.generate(random: CountingRandom(seed: 33))
        let code = try await Self.code(
            harness, query: H.authorizationQuery(.microsoft, pkce: pkce), clientID: "public-app")
        let reply = try await Self.exchange(
            harness, code: code, verifier: pkce.verifier, credentials: [("client_id", "public-app")])
        #expect(reply.status == 200, "\(reply.text)")
        let secret = try await Self.exchange(
            harness, code: try await Self.code(harness, clientID: "public-app"),
            credentials: [("client_id", "public-app"), ("client_secret", "anything")])
        #expect(secret.oauthError == "invalid_client")
    }

    @Test func refreshReturnsANewRefreshTokenAndTheOldOneStillWorks() async throws {
        let harness = try H()
        let (_, body, _) = try await Self.signIn(harness)
        let refresh = try #require(body["refresh_token"]?.stringValue)
        func use(_ token: String) async throws -> Reply {
            try await harness.post(
                Self.tokenPath(),
                form: [
                    ("grant_type", "refresh_token"), ("refresh_token", token), ("client_id", H.microsoftClientID),
                    ("client_secret", H.secret),
                ])
        }
        let first = try await use(refresh)
        #expect(first.status == 200)
        let next = try #require(try first.json()["refresh_token"]?.stringValue)
        #expect(next != refresh)
        #expect(try first.json()["id_token"] != nil)
        #expect(try await use(refresh).status == 200)
        #expect(try await use("0.ARunknown").oauthError == "invalid_grant")

        var noOffline = H.authorizationQuery(.microsoft)
        noOffline = noOffline.map { $0.0 == "scope" ? ($0.0, "openid profile email") : $0 }
        let reply = try await Self.exchange(harness, code: try await Self.code(harness, query: noOffline))
        #expect(try reply.json()["refresh_token"] == nil)
    }

    @Test func userinfoNeedsABearerToken() async throws {
        let harness = try H()
        let (_, body, _) = try await Self.signIn(harness)
        let token = try #require(body["access_token"]?.stringValue)
        let reply = try await harness.get("/microsoft/oidc/userinfo", headers: ["Authorization": "Bearer " + token])
        #expect(reply.status == 200)
        #expect(try reply.json()["email"] == .string("alice@contoso.example"))
        #expect(try await harness.get("/microsoft/oidc/userinfo").status == 401)
        #expect(
            try await harness.get("/microsoft/oidc/userinfo", headers: ["Authorization": "Bearer nope"]).status == 401)
    }

    // MARK: - Logout

    static var postLogoutURI: String { "https://app.example/auth/logged-out" }

    @Test func defaultPostLogoutURIIsTheLoggedOutRouteBesideTheCallback() {
        #expect(
            SandboxClient.defaultPostLogoutRedirectURI(for: "https://app.example/auth/microsoft/callback")
                == "https://app.example/auth/logged-out")
        #expect(
            SandboxClient.defaultPostLogoutRedirectURI(for: "http://localhost:8080/base/auth/ms/callback")
                == "http://localhost:8080/base/auth/logged-out")
        #expect(
            SandboxClient.defaultPostLogoutRedirectURI(for: "https://app.example/return")
                == "https://app.example/auth/logged-out")
        #expect(
            SandboxClient.microsoft(
                clientID: "c", clientSecret: "s", redirectURIs: ["https://app.example/auth/microsoft/callback"]
            ).postLogoutRedirectURIs == [Self.postLogoutURI])
    }

    @Test(arguments: Transport.available, ["GET", "POST"])
    func logoutWithAHintRedirectsToTheRegisteredURIWithState(transport: Transport, method: String) async throws {
        let harness = try H(transport: transport)
        let (_, _, idToken) = try await Self.signIn(harness)
        let parameters: [(String, String)] = [
            ("id_token_hint", idToken), ("client_id", H.microsoftClientID),
            ("post_logout_redirect_uri", Self.postLogoutURI), ("state", "lo-1"),
        ]
        let reply =
            method == "GET"
            ? try await harness.get("/microsoft/common/oauth2/v2.0/logout", parameters)
            : try await harness.post("/microsoft/common/oauth2/v2.0/logout", form: parameters)
        #expect(reply.status == 302, "\(reply.text)")
        #expect(reply.location == Self.postLogoutURI + "?state=lo-1")
        let logout = try #require(harness.sandbox.logouts(for: .microsoft).last)
        #expect(logout.clientID == H.microsoftClientID)
        #expect(logout.subject == SandboxIdentity.presets(for: .microsoft)[0].subject)
        #expect(logout.tenantID == Self.contoso)
        #expect(logout.viaPOST == (method == "POST"))
        #expect(harness.sandbox.requestCounts(for: .microsoft).endSession == 1)
    }

    @Test func logoutAcceptsAnExpiredHintAndAClientIDWithoutHint() async throws {
        let harness = try H()
        let (_, _, idToken) = try await Self.signIn(harness)
        harness.clock.advance(by: 7200)
        let expired = try await harness.get(
            "/microsoft/\(Self.contoso)/oauth2/v2.0/logout",
            [("id_token_hint", idToken), ("post_logout_redirect_uri", Self.postLogoutURI)])
        #expect(expired.status == 302)
        #expect(expired.location == Self.postLogoutURI)
        let byClient = try await harness.get(
            "/microsoft/common/oauth2/v2.0/logout",
            [("client_id", H.microsoftClientID), ("post_logout_redirect_uri", Self.postLogoutURI)])
        #expect(byClient.status == 302)
        let page = try await harness.get("/microsoft/common/oauth2/v2.0/logout")
        #expect(page.status == 200)
        #expect(harness.sandbox.logouts(for: .microsoft).count == 3)
    }

    enum LogoutDefect: String, CaseIterable, Sendable {
        case forgedHint, tamperedHint, otherTenantAuthority, clientMismatch, unregisteredURI, uriWithoutClient,
            unknownClient, mismatchedIssuerHint
    }

    @Test(arguments: LogoutDefect.allCases)
    func logoutRefusesWhatItCannotTrust(defect: LogoutDefect) async throws {
        let harness = try H()
        let (claims, _, idToken) = try await Self.signIn(harness)
        var authority = "common"
        var parameters: [(String, String)] = [
            ("id_token_hint", idToken), ("post_logout_redirect_uri", Self.postLogoutURI), ("state", "s"),
        ]
        switch defect {
        case .forgedHint:
            let forger = try JWK.generateRSA(bits: 2048, keyID: "ms-key-1")
            let forged = try JWS.sign(
                payload: Array(JSONValue.object(claims.json).serialized().utf8), key: forger, algorithm: .rs256)
            parameters[0].1 = forged
        case .tamperedHint:
            let parts = idToken.split(separator: ".")
            var payload = claims.json
            payload["aud"] = .string("someone-else")
            parameters[0].1 =
                String(parts[0]) + "." + Base64URL.encode(Array(JSONValue.object(payload).serialized().utf8)) + "."
                + String(parts[2])
        case .otherTenantAuthority:
            authority = Self.fabrikam
        case .clientMismatch:
            parameters.append(("client_id", "another-client"))
        case .unregisteredURI:
            parameters[1].1 = "https://evil.example/auth/logged-out"
        case .uriWithoutClient:
            parameters.removeFirst()
        case .unknownClient:
            parameters = [("client_id", "nobody"), ("post_logout_redirect_uri", Self.postLogoutURI)]
        case .mismatchedIssuerHint:
            harness.sandbox.setAutoConsent(
                SandboxIdentity(subject: "m", tenantID: Self.fabrikam, issuerTenantID: Self.contoso), for: .microsoft)
            let reply = try await harness.get(
                "/microsoft/common/oauth2/v2.0/authorize", H.authorizationQuery(.microsoft))
            let code = try #require(H.callbackFields(reply)["code"])
            parameters[0].1 = try #require(
                try await Self.exchange(harness, code: code).json()["id_token"]?.stringValue)
        }
        let reply = try await harness.get("/microsoft/\(authority)/oauth2/v2.0/logout", parameters)
        #expect(reply.status == 400, "\(defect): \(reply.status) \(reply.location ?? "")")
        #expect(reply.location == nil)
        #expect(harness.sandbox.logouts(for: .microsoft).isEmpty)
    }

    @Test func registrationChecksTheAuthMethodAgainstTheCredentials() {
        let harness = try? H()
        #expect(throws: SandboxError.self) {
            try harness?.sandbox.register(
                .microsoft(
                    clientID: "a", clientSecret: nil, redirectURIs: [H.redirectURI(.microsoft)],
                    authMethod: .clientSecretPost))
        }
        #expect(throws: SandboxError.self) {
            try harness?.sandbox.register(
                .microsoft(
                    clientID: "b", clientSecret: nil, redirectURIs: [H.redirectURI(.microsoft)],
                    authMethod: .privateKeyJWT))
        }
        #expect(throws: SandboxError.self) {
            try harness?.sandbox.register(
                .microsoft(
                    clientID: "c", clientSecret: "s", redirectURIs: [H.redirectURI(.microsoft)],
                    postLogoutRedirectURIs: ["javascript:alert(1)"]))
        }
    }
}
