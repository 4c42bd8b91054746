import AuthFlow
import AuthFlowDeployment
import AuthFlowProviders
import Foundation
import Testing

@Suite("native_clients and native_session_ttl in configuration")
struct NativeClientsTests {
    func load(_ yaml: String) throws(ConfigurationError) -> Configuration {
        try ConfigurationLoader(environment: [:]) { _ in throw CocoaError(.fileReadNoSuchFile) }
            .load(yaml: yaml, fileName: "providers.yaml")
    }

    @Test func nativeClientsOnAProviderWithoutNativeTokensIsRefusedWithTheReasonAtItsKey() throws {
        let configuration = try load(
            """
            server:
              public_url: https://app.example
              secret: 0123456789abcdef0123456789abcdef
            providers:
              x:
                type: x
                client_id: abc
                client_secret: s
                native_clients: [com.example.ios]

            """)
        do {
            _ = try ProviderRegistry.standard.resolve(configuration)
            Issue.record("expected native_clients on x to be refused")
        } catch {
            let text = error.issues.map(\.description).joined(separator: "\n")
            #expect(text.hasPrefix("providers.yaml:9:5: provider 'x' (type x) cannot take native_clients: its "))
            #expect(text.contains("issues no ID tokens to native apps"))
        }
    }

    @Test func facebookLimitedLoginGetsItsIssuerAndJWKSOnlyWithNativeClients() throws {
        let configuration = try load(
            """
            server:
              public_url: https://app.example
              secret: 0123456789abcdef0123456789abcdef
              native_session_ttl: 7d
            providers:
              facebook:
                type: facebook
                client_id: "1234567890"
                client_secret: s
                native_clients: ["1234567890"]
              fb-web:
                type: facebook
                client_id: "1234567890"
                client_secret: s
              google:
                type: google
                client_id: web.apps.googleusercontent.com
                client_secret: s
                native_clients: [android.apps.googleusercontent.com, ios.apps.googleusercontent.com]

            """)
        #expect(configuration.server?.nativeSessionTTL == 604_800.0)
        let providers = try ProviderRegistry.standard.resolve(configuration)
        let facebook = try #require(providers.first { $0.name == "facebook" })
        #expect(facebook.acceptsNativeSignIn)
        #expect(facebook.issuer == "https://www.facebook.com")
        #expect(facebook.endpoints.jwks == "https://limited.facebook.com/.well-known/oauth/openid/jwks/")
        let web = try #require(providers.first { $0.name == "fb-web" })
        #expect(!web.acceptsNativeSignIn)
        #expect(web.issuer == nil)
        #expect(web.endpoints.jwks == nil)
        let google = try #require(providers.first { $0.name == "google" })
        #expect(google.nativeClients == ["android.apps.googleusercontent.com", "ios.apps.googleusercontent.com"])
    }

    @Test func refusesABadNativeSessionTTLAndAnEmptyClientWithPositions() throws {
        do {
            _ = try load(
                """
                server:
                  public_url: https://app.example
                  secret: 0123456789abcdef0123456789abcdef
                  native_session_ttl: forever
                providers:
                  apple:
                    type: apple
                    client_id: com.example.web
                    native_clients: ["com.example ios", "com.example.ios"]

                """)
            Issue.record("expected the configuration to be refused")
        } catch {
            let text = error.issues.map(\.description).joined(separator: "\n")
            #expect(text.contains("providers.yaml:4:23: expected a duration like 30d, 8h or 90m"))
            #expect(text.contains("providers.yaml:9:22: expected a client id without spaces"))
        }
    }
}
