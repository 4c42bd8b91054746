import AuthFlow
import AuthFlowCurl
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

    @Test func refusesPKCEWhenTheIssuerDoesNotAdvertiseS256() async throws {
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
            #expect(plain.first?.capabilities == [.oidc])
            #expect(plain.first?.clientAuthentication == .clientSecretPost)
            let asked = try Self.configuration(
                Self.oidc("corp", issuer: issuer.baseURL, extra: "    capabilities: { pkce: true }"))
            do throws(ConfigurationError) {
                _ = try await ProviderRegistry.standard.resolve(asked, discovery: discovery)
                Issue.record("expected unsupported_capability")
            } catch {
                #expect(error.issues.map(\.code.rawValue) == ["unsupported_capability"])
                #expect(error.issues.first?.message.contains("code_challenge_methods_supported") == true)
            }
        }
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
