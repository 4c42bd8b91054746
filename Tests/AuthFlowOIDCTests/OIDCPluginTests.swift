import AuthFlow
import AuthFlowCurl
import AuthFlowDeployment
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowOIDC
import AuthFlowProviders
import Foundation
import Testing

@Suite struct OIDCPluginTests {
    static let client = CurlHTTPClient(configuration: .init(defaultTimeout: 30, connectTimeout: 15))

    static func configuration(_ providers: String) throws -> Configuration {
        let yaml = """
            server:
              public_url: http://localhost:8080
              secret: 0123456789abcdef0123456789abcdef
            providers:
            \(providers)
            """
        return try ConfigurationLoader(environment: [:]).load(yaml: yaml, fileName: "providers.yaml")
    }

    static func oidc(_ name: String, issuer: String, extra: String = "") -> String {
        """
          \(name):
            type: oidc
            issuer: \(issuer)
            client_id: app-\(name)
            client_secret: secret-\(name)
        \(extra)
        """
    }

    @Test func isRegisteredInTheStandardRegistry() {
        #expect(ProviderRegistry.standard.plugin(forType: "oidc") is OIDCPlugin)
    }

    @Test func synchronousResolutionReportsThatDiscoveryIsRequired() throws {
        let configuration = try Self.configuration(Self.oidc("corp", issuer: "https://login.corp.example"))
        do {
            _ = try ProviderRegistry.standard.resolve(configuration)
            Issue.record("expected discovery_required")
        } catch {
            let issue = try #require(error.issues.first { $0.code == OIDCPlugin.discoveryRequired })
            #expect(issue.location?.line == 7)  // the issuer: key
        }
    }

    @Test func resolvesEndpointsCapabilitiesAndClientAuthenticationFromDiscovery() async throws {
        try await TestIssuer.with { issuer in
            let configuration = try Self.configuration(Self.oidc("corp", issuer: issuer.baseURL))
            let providers = try await ProviderRegistry.standard.resolve(
                configuration, discovery: OIDCDiscovery(httpClient: Self.client, timeout: 30))
            let corp = try #require(providers.first)
            #expect(corp.type == "oidc")
            #expect(corp.endpoints.authorization == issuer.baseURL + "/authorize")
            #expect(corp.endpoints.token == issuer.baseURL + "/token")
            #expect(corp.endpoints.jwks == issuer.baseURL + "/jwks")
            #expect(corp.endpoints.revocation == issuer.baseURL + "/revoke")
            #expect(corp.capabilities == [.oidc, .pkce])
            #expect(corp.clientAuthentication == .clientSecretBasic)
            #expect(corp.idTokenAlgorithms == [.rs256])
            #expect(corp.acceptedIssuers == [issuer.baseURL])
            #expect(corp.scopes == ["openid", "email", "profile"])
            #expect(corp.callsUserinfo)
            #expect(corp.redirectURI == "http://localhost:8080/auth/corp/callback")
        }
    }

    @Test func forcesPKCEWithAnAdvisoryWhenTheIssuerDoesNotAdvertiseS256() async throws {
        let document: @Sendable (String) -> JSONValue = { base in
            TestIssuer.document(
                base,
                [
                    "code_challenge_methods_supported": ["plain"],
                    "token_endpoint_auth_methods_supported": ["client_secret_post"],
                ])
        }
        try await TestIssuer.with(document: document) { issuer in
            let discovery = OIDCDiscovery(httpClient: Self.client, timeout: 30)
            let plain = try await ProviderRegistry.standard.resolve(
                try Self.configuration(Self.oidc("corp", issuer: issuer.baseURL)), discovery: discovery)
            let off = try #require(plain.first)
            #expect(off.capabilities == [.oidc])
            #expect(off.clientAuthentication == .clientSecretPost)
            #expect((off.plugin as? OIDCPlugin)?.advice(for: off) == [])
            let forced = try await ProviderRegistry.standard.resolve(
                try Self.configuration(
                    Self.oidc("corp", issuer: issuer.baseURL, extra: "    capabilities: { pkce: true }")),
                discovery: discovery)
            let on = try #require(forced.first)
            #expect(on.capabilities == [.oidc, .pkce])
            let advice = try #require((on.plugin as? OIDCPlugin)?.advice(for: on).first)
            #expect(advice.code == "pkce_not_advertised")
            #expect(advice.finding.contains("code_challenge_methods_supported"))
        }
    }

    @Test func clientAuthMustBeAmongTheAdvertisedMethods() async throws {
        let document: @Sendable (String) -> JSONValue = { base in
            TestIssuer.document(base, ["token_endpoint_auth_methods_supported": ["client_secret_basic"]])
        }
        try await TestIssuer.with(document: document) { issuer in
            let discovery = OIDCDiscovery(httpClient: Self.client, timeout: 30)
            let configuration = try Self.configuration(
                Self.oidc("corp", issuer: issuer.baseURL, extra: "    client_auth: client_secret_post"))
            do throws(ConfigurationError) {
                _ = try await ProviderRegistry.standard.resolve(configuration, discovery: discovery)
                Issue.record("expected unsupported_client_authentication")
            } catch {
                #expect(error.issues.map(\.code.rawValue) == ["unsupported_client_authentication"])
                #expect(error.issues.first?.location?.line == 10)
                #expect(
                    error.issues.first?.message
                        == "provider 'corp' (type oidc) cannot use client_auth client_secret_post: the issuer's "
                        + "discovery document lists token_endpoint_auth_methods_supported [client_secret_basic], so "
                        + "client_auth may be: client_secret_basic")
            }
        }
        // Nothing advertised: the configured method is used.
        let silent: @Sendable (String) -> JSONValue = { base in
            TestIssuer.document(base, ["token_endpoint_auth_methods_supported": .null])
        }
        try await TestIssuer.with(document: silent) { issuer in
            let providers = try await ProviderRegistry.standard.resolve(
                try Self.configuration(
                    Self.oidc("corp", issuer: issuer.baseURL, extra: "    client_auth: client_secret_post")),
                discovery: OIDCDiscovery(httpClient: Self.client, timeout: 30))
            #expect(providers.first?.clientAuthentication == .clientSecretPost)
        }
    }

    /// RFC 9126 from discovery: `par: auto` pushes where the issuer advertises the endpoint; `par: off` where
    /// it sets `require_pushed_authorization_requests`, or `par: required` where it has no endpoint, is a
    /// configuration error at the `par:` key naming the discovery field.
    @Test func pushedAuthorizationFollowsDiscoveryAndRefusesWhatTheIssuerCannotDo() async throws {
        let demanding: @Sendable (String) -> JSONValue = { base in
            TestIssuer.document(
                base,
                [
                    "pushed_authorization_request_endpoint": .string(base + "/par"),
                    "require_pushed_authorization_requests": true,
                ])
        }
        try await TestIssuer.with(document: demanding) { issuer in
            let discovery = OIDCDiscovery(httpClient: Self.client, timeout: 30)
            let providers = try await ProviderRegistry.standard.resolve(
                try Self.configuration(Self.oidc("corp", issuer: issuer.baseURL)), discovery: discovery)
            #expect(providers.first?.pushedAuthorizationEndpoint == issuer.baseURL + "/par")
            let offMode = try Self.configuration(Self.oidc("corp", issuer: issuer.baseURL, extra: "    par: off"))
            do throws(ConfigurationError) {
                _ = try await ProviderRegistry.standard.resolve(offMode, discovery: discovery)
                Issue.record("expected par: off to be refused")
            } catch {
                #expect(error.issues.map(\.code.rawValue) == ["invalid_value"])
                #expect(error.issues.first?.location?.line == 10)
                #expect(error.issues.first?.message.contains("require_pushed_authorization_requests: true") == true)
            }
        }
        try await TestIssuer.with { issuer in
            let discovery = OIDCDiscovery(httpClient: Self.client, timeout: 30)
            let plain = try await ProviderRegistry.standard.resolve(
                try Self.configuration(Self.oidc("corp", issuer: issuer.baseURL)), discovery: discovery)
            #expect(plain.first?.pushedAuthorizationEndpoint == nil)
            let requiredMode = try Self.configuration(
                Self.oidc("corp", issuer: issuer.baseURL, extra: "    par: required"))
            do throws(ConfigurationError) {
                _ = try await ProviderRegistry.standard.resolve(requiredMode, discovery: discovery)
                Issue.record("expected par: required to be refused")
            } catch {
                #expect(error.issues.map(\.code.rawValue) == ["missing_endpoint"])
                #expect(error.issues.first?.location?.line == 10)
                #expect(error.issues.first?.message.contains("pushed_authorization_request_endpoint") == true)
            }
            #expect(throws: ConfigurationError.self) {
                _ = try Self.configuration(Self.oidc("corp", issuer: issuer.baseURL, extra: "    par: sometimes"))
            }
        }
    }

    /// `dpop: auto` binds tokens where discovery advertises `dpop_signing_alg_values_supported` with ES256 (or only
    /// EdDSA), not where it advertises nothing; `dpop: true` binds anyway (RFC 9449 lets a client send proofs to any
    /// server) but is an error at `dpop:` where the advertised list has neither algorithm.
    @Test func dpopFollowsDiscoveryAndRefusesAnIssuerWithoutOurAlgorithms() async throws {
        func issuer(_ algorithms: [String]) -> @Sendable (String) -> JSONValue {
            { base in
                TestIssuer.document(base, ["dpop_signing_alg_values_supported": .array(algorithms.map { .string($0) })])
            }
        }
        try await TestIssuer.with(document: issuer(["ES256", "PS256"])) { issuer in
            let discovery = OIDCDiscovery(httpClient: Self.client, timeout: 30)
            let providers = try await ProviderRegistry.standard.resolve(
                try Self.configuration(Self.oidc("corp", issuer: issuer.baseURL)), discovery: discovery)
            #expect(providers.first?.dpopAlgorithm == .es256)
            let off = try await ProviderRegistry.standard.resolve(
                try Self.configuration(Self.oidc("corp", issuer: issuer.baseURL, extra: "    dpop: false")),
                discovery: discovery)
            #expect(off.first?.dpopAlgorithm == nil)
        }
        try await TestIssuer.with(document: issuer(["EdDSA"])) { issuer in
            let providers = try await ProviderRegistry.standard.resolve(
                try Self.configuration(Self.oidc("corp", issuer: issuer.baseURL)),
                discovery: OIDCDiscovery(httpClient: Self.client, timeout: 30))
            #expect(providers.first?.dpopAlgorithm == .edDSA)
        }
        try await TestIssuer.with(document: issuer(["RS256"])) { issuer in
            let discovery = OIDCDiscovery(httpClient: Self.client, timeout: 30)
            let auto = try await ProviderRegistry.standard.resolve(
                try Self.configuration(Self.oidc("corp", issuer: issuer.baseURL)), discovery: discovery)
            #expect(auto.first?.dpopAlgorithm == nil)
            let forced = try Self.configuration(Self.oidc("corp", issuer: issuer.baseURL, extra: "    dpop: true"))
            do throws(ConfigurationError) {
                _ = try await ProviderRegistry.standard.resolve(forced, discovery: discovery)
                Issue.record("expected dpop: true to be refused")
            } catch {
                #expect(error.issues.map(\.code.rawValue) == ["invalid_value"])
                #expect(error.issues.first?.location?.line == 10)
                #expect(error.issues.first?.message.contains("dpop_signing_alg_values_supported") == true)
            }
        }
        try await TestIssuer.with { issuer in
            let discovery = OIDCDiscovery(httpClient: Self.client, timeout: 30)
            let plain = try await ProviderRegistry.standard.resolve(
                try Self.configuration(Self.oidc("corp", issuer: issuer.baseURL)), discovery: discovery)
            #expect(plain.first?.dpopAlgorithm == nil)
            let forced = try await ProviderRegistry.standard.resolve(
                try Self.configuration(Self.oidc("corp", issuer: issuer.baseURL, extra: "    dpop: true")),
                discovery: discovery)
            #expect(forced.first?.dpopAlgorithm == .es256)
        }
    }

    /// `id_token_signed_response_alg` (the algorithm the client registered) narrows the id_token and logout token
    /// algorithms to that one: a token the issuer signs with another advertised algorithm is refused; an algorithm
    /// the issuer does not advertise is an error at the key, and a symmetric or unknown name at reading.
    @Test func idTokenSignedResponseAlgAcceptsOnlyTheRegisteredAlgorithm() async throws {
        let document: @Sendable (String) -> JSONValue = { base in
            TestIssuer.document(base, ["id_token_signing_alg_values_supported": ["RS256", "ES256"]])
        }
        try await TestIssuer.with(document: document) { issuer in
            let discovery = OIDCDiscovery(httpClient: Self.client, timeout: 30)
            let open = try await ProviderRegistry.standard.resolve(
                try Self.configuration(Self.oidc("corp", issuer: issuer.baseURL)), discovery: discovery)
            #expect(open.first?.idTokenAlgorithms == [.rs256, .es256])
            let registered = try await ProviderRegistry.standard.resolve(
                try Self.configuration(
                    Self.oidc("corp", issuer: issuer.baseURL, extra: "    id_token_signed_response_alg: ES256")),
                discovery: discovery)
            let corp = try #require(registered.first)
            #expect(corp.idTokenAlgorithms == [.es256])
            let now = Date()
            let claims: [String: JSONValue] = [
                "iss": .string(issuer.baseURL), "aud": "app-corp", "sub": "s",
                "iat": .integer(Int64(now.timeIntervalSince1970)),
                "exp": .integer(Int64(now.timeIntervalSince1970) + 60),
            ]
            let rsa = try JWK.generateRSA(bits: 2048, keyID: "r")
            let ec = try JWK.generateP256(keyID: "e")
            let keys = JWKSet(keys: [rsa.publicKey, ec.publicKey])
            let verifier = corp.jwtVerifier(leeway: 60)
            do throws(JOSEError) {
                _ = try verifier.verify(try JWT.sign(claims: claims, key: rsa), keys: keys, now: now)
                Issue.record("expected an RS256 token to be refused where ES256 is registered")
            } catch {
                #expect(error.code == .algorithmNotAllowed)
            }
            #expect(try verifier.verify(JWT.sign(claims: claims, key: ec), keys: keys, now: now).subject == "s")
            let unadvertised = try Self.configuration(
                Self.oidc("corp", issuer: issuer.baseURL, extra: "    id_token_signed_response_alg: PS256"))
            do throws(ConfigurationError) {
                _ = try await ProviderRegistry.standard.resolve(unadvertised, discovery: discovery)
                Issue.record("expected an algorithm the issuer does not advertise to be refused")
            } catch {
                #expect(error.issues.map(\.code.rawValue) == ["invalid_value"])
                #expect(error.issues.first?.location?.line == 10)
                #expect(error.issues.first?.message.contains("ES256, RS256") == true)
            }
        }
        try await TestIssuer.with(document: document) { issuer in
            let fapi = try Self.configuration(
                Self.oidc(
                    "corp", issuer: issuer.baseURL,
                    extra: "    profile: fapi2\n    id_token_signed_response_alg: RS256"))
            do throws(ConfigurationError) {
                _ = try await ProviderRegistry.standard.resolve(
                    fapi, discovery: OIDCDiscovery(httpClient: Self.client, timeout: 30))
                Issue.record("expected RS256 to be refused under profile: fapi2")
            } catch {
                #expect(error.issues.contains { $0.message.contains("id_token_signed_response_alg is RS256") })
            }
        }
        for name in ["HS256", "none", "es256"] {
            #expect(throws: ConfigurationError.self) {
                _ = try Self.configuration(
                    Self.oidc("corp", issuer: "https://id.example", extra: "    id_token_signed_response_alg: \(name)"))
            }
        }
    }

    @Test func mapsClaimsOfTheIDTokenAndKeepsUserinfoSubjectAsSub() throws {
        let metadata = try OIDCProviderMetadata(
            json: TestIssuer.googleLike("https://id.example"), expectedIssuer: "https://id.example")
        let registry = ProviderRegistry([OIDCPlugin().discovered(metadata)])
        let settings = ProviderSettings(
            name: "corp", type: "oidc", clientID: "c", clientSecret: Secret("s"), issuer: "https://id.example",
            location: SourceLocation(fileName: "f", line: 1, column: 1, sourceLine: nil),
            claims: ClaimMapping(subject: .init("oid"), emailVerified: .always(true), groups: .init("roles")))
        let corp = try registry.resolve(settings, publicURL: "https://app.example")
        let identity = try corp.plugin.identity.identity(
            fromIDToken: JWTClaims(json: ["sub": "pairwise", "oid": "u-1", "email": "a@b.example", "roles": ["r"]]),
            provider: corp)
        #expect(identity.subject == "u-1")
        #expect(identity.emailVerified)
        #expect(identity.groups == ["r"])
        let fromUserinfo = try corp.plugin.identity.identity(fromUserinfo: [["sub": "pairwise"]], provider: corp)
        #expect(fromUserinfo.subject == "pairwise")
    }

    @Test func reportsAFailedDiscoveryAtTheIssuerKeyAndKeepsResolvingTheOthers() async throws {
        let documents: [@Sendable (String) -> JSONValue] = [
            TestIssuer.googleLike, { _ in TestIssuer.document("https://elsewhere.example", [:]) },
        ]
        try await TestIssuer.withAll(documents) { issuers in
            let configuration = try Self.configuration(
                Self.oidc("good", issuer: issuers[0].baseURL) + "\n" + Self.oidc("bad", issuer: issuers[1].baseURL)
                    + "\n" + "  broken:\n    type: googel\n    client_id: x\n    client_secret: y")
            do throws(ConfigurationError) {
                _ = try await ProviderRegistry.standard.resolve(
                    configuration, discovery: OIDCDiscovery(httpClient: Self.client, timeout: 30))
                Issue.record("expected issues")
            } catch {
                #expect(error.issues.map(\.code.rawValue) == ["discovery_failed", "unknown_provider_type"])
                #expect(error.issues.first?.location?.line == 13)
                #expect(error.issues.first?.message.contains("issuer_mismatch") == true)
            }
        }
    }

    @Test func resolvesTwoIssuersSideBySide() async throws {
        let documents: [@Sendable (String) -> JSONValue] = [
            TestIssuer.googleLike,
            { base in TestIssuer.document(base, ["id_token_signing_alg_values_supported": ["ES256", "HS256"]]) },
        ]
        try await TestIssuer.withAll(documents) { issuers in
            let configuration = try Self.configuration(
                Self.oidc("one", issuer: issuers[0].baseURL) + "\n" + Self.oidc("two", issuer: issuers[1].baseURL))
            let providers = try await ProviderRegistry.standard.resolve(
                configuration, discovery: OIDCDiscovery(httpClient: Self.client, timeout: 30))
            #expect(providers.map(\.name) == ["one", "two"])
            #expect(providers.map(\.idTokenAlgorithms) == [[.rs256], [.es256]])
            #expect(providers[0].endpoints.token == issuers[0].baseURL + "/token")
            #expect(providers[1].endpoints.token == issuers[1].baseURL + "/token")
        }
    }

    @Test func refusesMetadataOfAnotherIssuer() throws {
        let metadata = try OIDCProviderMetadata(
            json: TestIssuer.googleLike("https://one.example"), expectedIssuer: "https://one.example")
        var registry = ProviderRegistry.standard
        registry.register(OIDCPlugin(metadata: metadata))
        let settings = ProviderSettings(
            name: "corp", type: "oidc", clientID: "app", clientSecret: Secret("s"), issuer: "https://two.example",
            location: SourceLocation(fileName: "providers.yaml", line: 3, column: 3, sourceLine: nil))
        do {
            _ = try registry.resolve(settings, publicURL: "https://app.example")
            Issue.record("expected invalid_value")
        } catch {
            #expect(error.issues.map(\.code.rawValue) == ["invalid_value"])
        }
    }

    @Test func keepsTheIdTokenAsTheIdentitySourceWithoutUserinfoWhenAskedTo() throws {
        let metadata = try OIDCProviderMetadata(
            json: TestIssuer.googleLike("https://one.example"), expectedIssuer: "https://one.example")
        #expect(OIDCPlugin(metadata: metadata).fetchesUserinfoWithIDToken)
        #expect(!OIDCPlugin(metadata: metadata, userinfo: .never).fetchesUserinfoWithIDToken)
        let noUserinfo = try OIDCProviderMetadata(
            json: TestIssuer.document("https://one.example", ["userinfo_endpoint": .null]),
            expectedIssuer: "https://one.example")
        #expect(!OIDCPlugin(metadata: noUserinfo).fetchesUserinfoWithIDToken)
    }
}
