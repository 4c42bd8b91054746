import AuthFlow
import AuthFlowJOSE
import Foundation
import Testing

/// `authorization_params`: configured extras reach the authorization URL, win over the plugin's own
/// extras, and can never replace a parameter AuthFlow sets (state, nonce, PKCE, scope, …).
@Suite("OAuthFlow authorization parameters")
struct OAuthFlowAuthorizationParameterTests {
    static func provider(
        configured: [String: String], pluginExtras: [(String, String)] = [], capabilities: [String: Bool] = [:]
    ) throws -> ResolvedProvider {
        var plugin = TestPlugin(clientSecretKey: TestProviders.clientSecretKey)
        plugin.extraParameters = pluginExtras
        let settings = ProviderSettings(
            name: "test", type: "test", clientID: TestProviders.clientID,
            clientSecret: Secret(TestProviders.clientSecret), capabilities: capabilities,
            authorizationParameters: configured, location: TestProviders.location)
        return try ProviderRegistry([plugin]).resolve(settings, publicURL: TestProviders.publicURL)
    }

    static func redirectParameters(_ provider: ResolvedProvider) throws -> [(String, String)] {
        let redirect = try FlowHarness(provider).begin()
        let components = try #require(URLComponents(string: redirect.url))
        return (components.queryItems ?? []).map { ($0.name, $0.value ?? "") }
    }

    @Test func configuredParametersReachTheAuthorizationURL() throws {
        let provider = try Self.provider(configured: ["access_type": "offline", "prompt": "consent"])
        let parameters = try Self.redirectParameters(provider)
        #expect(parameters.filter { $0.0 == "access_type" }.map(\.1) == ["offline"])
        #expect(parameters.filter { $0.0 == "prompt" }.map(\.1) == ["consent"])
        let plain = try Self.redirectParameters(try Self.provider(configured: [:]))
        #expect(!plain.contains { $0.0 == "access_type" || $0.0 == "prompt" })
    }

    /// Values are percent-encoded: one cannot smuggle another parameter into the URL.
    @Test func valuesCannotInjectParameters() throws {
        let hint = "jane@example.com&state=attacker#x y+z"
        let provider = try Self.provider(configured: ["login_hint": hint])
        let parameters = try Self.redirectParameters(provider)
        #expect(parameters.filter { $0.0 == "login_hint" }.map(\.1) == [hint])
        #expect(parameters.filter { $0.0 == "state" }.map(\.1) == [FlowHarness(provider).secrets.state])
        #expect(try FlowHarness(provider).begin().url.contains("#") == false)
    }

    @Test func configuredParametersWinOverThePluginsExtras() throws {
        let provider = try Self.provider(
            configured: ["prompt": "select_account"], pluginExtras: [("prompt", "consent"), ("display", "page")])
        let parameters = try Self.redirectParameters(provider)
        #expect(parameters.filter { $0.0 == "prompt" }.map(\.1) == ["select_account"])
        #expect(parameters.filter { $0.0 == "display" }.map(\.1) == ["page"])
    }

    /// The loader refuses these names; settings built in code that carry them still cannot replace the
    /// per-sign-in values or the capability-driven ones, nor add a second copy.
    @Test func neverReplacesWhatAuthFlowSets() throws {
        let hostile = [
            "state": "attacker-state", "nonce": "attacker-nonce", "code_challenge": "attacker-challenge",
            "code_challenge_method": "plain", "scope": "admin", "redirect_uri": "https://evil.example/cb",
            "client_id": "other", "response_type": "token", "response_mode": "fragment",
        ]
        let provider = try Self.provider(
            configured: hostile, capabilities: ["oidc": true, "pkce": true, "form_post": true])
        let parameters = try Self.redirectParameters(provider)
        let secrets = FlowHarness(provider).secrets
        for name in hostile.keys {
            #expect(parameters.filter { $0.0 == name }.count == 1, "\(name) must appear exactly once")
        }
        let values = Dictionary(parameters, uniquingKeysWith: { first, _ in first })
        #expect(values["state"] == secrets.state)
        #expect(values["nonce"] == secrets.nonce)
        #expect(values["code_challenge"] == PKCE.challenge(for: secrets.pkceVerifier))
        #expect(values["code_challenge_method"] == "S256")
        #expect(values["redirect_uri"] == provider.redirectURI)
        #expect(values["client_id"] == TestProviders.clientID)
        #expect(values["response_type"] == "code")
        #expect(values["response_mode"] == "form_post")
        #expect(values["scope"]?.contains("admin") == false)
    }
}
