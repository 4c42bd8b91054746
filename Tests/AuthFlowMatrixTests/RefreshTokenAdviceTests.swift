import AuthFlow
import AuthFlowDeployment
import AuthFlowMatrix
import AuthFlowProviders
import Testing

/// The refresh-token advice comes from the plugin's declaration, so an application's own plugin gets it too.
@Suite struct RefreshTokenAdviceTests {
    struct CorpPlugin: ProviderPlugin {
        let request: RefreshTokenRequest
        var about: ProviderDescription {
            ProviderDescription(
                type: "corp",
                endpoints: ProviderEndpoints(
                    authorization: "https://sso.corp.example/authorize", token: "https://sso.corp.example/token",
                    userinfo: "https://sso.corp.example/me"),
                refreshTokenRequest: request)
        }
        func support(for capability: Capability, settings: ProviderSettings) -> CapabilitySupport {
            .unsupported(reason: "Corp SSO is plain OAuth 2.0")
        }
        var tokenEndpoint: any TokenEndpointStrategy { StandardTokenEndpoint(.clientSecretBasic) }
    }

    static func advice(_ request: RefreshTokenRequest, extra: String = "") throws -> [Advisory] {
        var registry = ProviderRegistry.standard
        registry.register(CorpPlugin(request: request))
        let yaml =
            "server:\n  public_url: https://app.example\nproviders:\n  corp:\n    client_id: a\n"
            + "    client_secret: ${S}\n" + extra
        let configuration = try ConfigurationLoader(environment: [:], mode: .sandbox).load(
            yaml: yaml, fileName: "test.yaml")
        let resolved = try registry.resolve(configuration, credentials: .keys)
        return CapabilityMatrix(providers: resolved, storesTokens: true, options: .init()).advisories.filter {
            $0.code == .noRefreshToken
        }
    }

    @Test func aDeclaredScopeIsAdvisedUntilItIsConfigured() throws {
        let missing = try Self.advice(.scope("corp.offline"))
        #expect(missing.count == 1)
        #expect(missing.first?.finding.hasPrefix("no corp.offline scope — corp issues no refresh token") == true)
        #expect(missing.first?.change.contains(.yaml("corp.offline")) == true)
        #expect(try Self.advice(.scope("corp.offline"), extra: "    scopes: [openid, corp.offline]\n").isEmpty)
    }

    @Test func aDeclaredAuthorizationParameterIsAdvisedUntilItIsConfigured() throws {
        let missing = try Self.advice(.authorizationParameter(name: "grant", value: "long"))
        #expect(missing.count == 1)
        #expect(missing.first?.finding.hasPrefix("no grant=long — corp issues no refresh token") == true)
        #expect(missing.first?.change.contains(.yaml("authorization_params: { grant: long }")) == true)
        let configured = try Self.advice(
            .authorizationParameter(name: "grant", value: "long"), extra: "    authorization_params: { grant: long }\n")
        #expect(configured.isEmpty)
    }

    @Test func noDeclarationMeansNoAdvice() throws {
        #expect(try Self.advice(.none).isEmpty)
    }
}
