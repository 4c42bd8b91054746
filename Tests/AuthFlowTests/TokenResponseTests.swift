import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import Foundation
import Testing

/// The code exchange and the refresh read a token endpoint's answer with the same parser: the same answer is
/// refused by both with the same typed error.
@Suite struct TokenResponseTests {
    static let answers: [(String, HTTPClientResponse)] = [
        (
            "an OAuth error",
            TestIdentityProvider.json(["error": "invalid_grant", "access_token": "leaked"], status: 400)
        ),
        ("an error member in a 200", TestIdentityProvider.json(["error": "invalid_client"])),
        (
            "a Facebook error object",
            TestIdentityProvider.json(["error": .object(["type": "OAuthException"])], status: 400)
        ),
        ("a 502 page", HTTPClientResponse(status: 502, headers: [:], body: Array("<html>".utf8))),
        ("not JSON", HTTPClientResponse(status: 200, headers: [:], body: Array("not json".utf8))),
        ("no access_token", TestIdentityProvider.json(["token_type": "Bearer"])),
        ("an empty access_token", TestIdentityProvider.json(["access_token": ""])),
        ("a MAC token", TestIdentityProvider.json(["access_token": "abc-token", "token_type": "mac"])),
    ]

    @Test(arguments: answers.indices)
    func theExchangeAndTheRefreshRefuseAnAnswerAlike(_ index: Int) async throws {
        let (name, answer) = Self.answers[index]
        let provider = try TestProviders.resolve([:])
        let harness = FlowHarness(provider)
        var (flow, _, _) = try harness.exchange()
        let exchange = try #require(flow.tokenResponseReceived(answer, now: harness.now).failure, "\(name)")

        let client = FakeHTTPClient()
        client.route("https://idp.test/token") { _ in answer }
        let operations = TokenOperations(providers: [provider], httpClient: client)
        let refresh = await #expect(throws: SignInError.self, "\(name)") {
            _ = try await operations.refresh(provider: provider.name, refreshToken: "rt-value")
        }
        #expect(refresh?.code == exchange.code, "\(name)")
        #expect(refresh?.providerError == exchange.providerError, "\(name)")
        #expect(refresh?.upstreamStatus == exchange.upstreamStatus, "\(name)")
        #expect(refresh?.provider == provider.name)
        #expect(!(refresh?.description.contains("leaked") ?? true) && !exchange.description.contains("leaked"))
    }

    @Test func aGoodAnswerIsReadAlike() async throws {
        let answer = TestIdentityProvider.json([
            "access_token": "at-value", "token_type": "bearer", "expires_in": "3600", "refresh_token": "rt-new",
            "scope": "openid email",
        ])
        let provider = try TestProviders.resolve([:])
        let client = FakeHTTPClient()
        client.route("https://idp.test/token") { _ in answer }
        let refreshed = try await TokenOperations(providers: [provider], httpClient: client).refresh(
            provider: provider.name, refreshToken: "rt-old")
        #expect(refreshed.tokens.accessToken == "at-value")
        #expect(refreshed.tokens.expiresIn == 3600)
        #expect(refreshed.tokens.scope == "openid email")
        #expect(refreshed.rotated && refreshed.refreshToken == "rt-new")
    }
}
