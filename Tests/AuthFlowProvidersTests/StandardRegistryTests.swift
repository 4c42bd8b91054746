import AuthFlow
import AuthFlowDeployment
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowProviderTestSupport
import AuthFlowProviders
import Foundation
import Testing

/// An application's own provider, registered next to the built-ins in a few lines.
struct CorpSSOPlugin: ProviderPlugin {
    var about: ProviderDescription {
        ProviderDescription(
            type: "corp",
            endpoints: ProviderEndpoints(
                authorization: "https://sso.corp.example/authorize", token: "https://sso.corp.example/token",
                userinfo: "https://sso.corp.example/me"))
    }
    func support(for capability: Capability, settings: ProviderSettings) -> CapabilitySupport {
        capability == .pkce ? .required : .unsupported(reason: "Corp SSO is plain OAuth 2.0")
    }
    var tokenEndpoint: any TokenEndpointStrategy { StandardTokenEndpoint(.clientSecretBasic) }
}

@Suite struct StandardRegistryTests {
    @Test func holdsTheBuiltIns() {
        #expect(
            ProviderRegistry.standard.types == [
                "apple", "discord", "facebook", "github", "gitlab", "google", "linkedin", "microsoft", "oauth2", "oidc",
                "passkey", "slack", "x",
            ])
    }

    @Test func registersAnApplicationPlugin() throws {
        var registry = ProviderRegistry.standard
        registry.register(CorpSSOPlugin())
        #expect(
            registry.types == [
                "apple", "corp", "discord", "facebook", "github", "gitlab", "google", "linkedin", "microsoft", "oauth2",
                "oidc", "passkey", "slack", "x",
            ])
        let provider = try registry.resolve(Fixtures.settings("corp"), publicURL: "https://app.example")
        #expect(provider.capabilities == [.pkce])
        #expect(provider.identitySource == .userinfo)
        let (_, action, _) = Fixtures.exchange(provider)
        guard case .exchangeCode(let exchange) = action else {
            Issue.record("expected the exchange")
            return
        }
        #expect(exchange.request.headers["Authorization"]?.hasPrefix("Basic ") == true)
        #expect(ProviderRegistry.standard.plugin(forType: "corp") == nil)
    }

    func load(_ yaml: String, files: [String: String] = [:]) throws -> Configuration {
        try ConfigurationLoader(environment: [:]) { path in
            guard let text = files[path] else { throw CocoaError(.fileReadNoSuchFile) }
            return text
        }.load(yaml: yaml, fileName: "providers.yaml")
    }

    @Test func reportsEveryIssueWithExactPositions() throws {
        let yaml = """
            server:
              public_url: https://app.example
              secret: 0123456789abcdef0123456789abcdef
            providers:
              apple:
                type: apple
                client_id: com.example.web
                capabilities: { pkce: true }
              google:
                type: gogle
                client_id: abc
              x:
                type: x
                client_id: abc
                capabilities:
                  oidc: true

            """
        let configuration = try load(yaml)
        do {
            _ = try ProviderRegistry.standard.resolve(configuration)
            Issue.record("expected the configuration to be refused")
        } catch {
            let text = error.issues.map(\.description).joined(separator: "\n")
            // ConfigurationError orders issues by position.
            let expected = """
                providers.yaml:5:3: provider 'apple' (type apple) requires 'team_id'
                  apple:
                  ^
                providers.yaml:5:3: provider 'apple' (type apple) requires 'key_id'
                  apple:
                  ^
                providers.yaml:5:3: provider 'apple' (type apple) requires 'private_key_file'
                  apple:
                  ^
                providers.yaml:8:21: provider 'apple' (type apple) cannot enable pkce: Apple's REST API documents no code_challenge parameter
                    capabilities: { pkce: true }
                                    ^
                providers.yaml:10:11: unknown provider type 'gogle' for provider 'google'; did you mean 'google'? (known types: apple, discord, facebook, github, gitlab, google, linkedin, microsoft, oauth2, oidc, passkey, slack, x)
                    type: gogle
                          ^
                providers.yaml:12:3: provider 'x' (type x) requires 'client_secret' (or 'client_secret_file')
                  x:
                  ^
                providers.yaml:16:7: provider 'x' (type x) cannot enable oidc: X has no OpenID Connect: it issues no id_token and publishes no discovery or JWKS
                      oidc: true
                      ^
                """
            #expect(text == expected)
        }
    }

    @Test func resolvesTheRootTemplateWithCredentials() throws {
        let pem = try Fixtures.appleKey.pkcs8PEM()
        let environment = [
            "AUTHFLOW_SECRET": String(repeating: "s", count: 40), "APPLE_TEAM_ID": "ABCDE12345",
            "APPLE_KEY_ID": "KEY1234567", "APPLE_PRIVATE_KEY_FILE": "/keys/AuthKey.p8",
            "GOOGLE_CLIENT_SECRET": "g", "FACEBOOK_CLIENT_SECRET": "f", "X_CLIENT_SECRET": "x",
        ]
        let loader = ConfigurationLoader(environment: environment) { path in
            if path == "/keys/AuthKey.p8" { return pem }
            throw CocoaError(.fileReadNoSuchFile)
        }
        let template = try String(contentsOfFile: Self.repositoryFile("providers.yaml"), encoding: .utf8)
        let configuration = try loader.load(yaml: template, fileName: "providers.yaml")
        let providers = try ProviderRegistry.standard.resolve(configuration)
        #expect(providers.map(\.name) == ["apple", "google", "facebook", "x"])
        #expect(
            providers.map(\.clientAuthentication.rawValue) == [
                "es256_client_secret_jwt", "client_secret_post", "client_secret_get", "client_secret_basic",
            ])
        #expect(providers.map(\.callbackMethod.rawValue) == ["POST", "GET", "GET", "GET"])
        #expect(providers.map(\.roundTrips) == [1, 1, 2, 2])
        #expect(providers[0].redirectURI == "http://localhost:8080/auth/apple/callback")
    }

    static func repositoryFile(_ name: String) -> String {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.appendingPathComponent(name).path
    }
}
