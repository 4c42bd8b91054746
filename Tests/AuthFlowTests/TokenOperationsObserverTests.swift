import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import Foundation
import Testing

/// `TokenOperations` reports its token and revocation requests to its observer (the server's metrics) and bounds
/// them by its request timeout, as the server's disconnect and account deletion rely on.
@Suite struct TokenOperationsObserverTests {
    let http = FakeHTTPClient()
    let observer = RecordingProviderObserver()

    func operations(timeout: Double? = 10) throws -> TokenOperations {
        TokenOperations(
            providers: [try TestProviders.resolve([:])], httpClient: http, observer: observer, requestTimeout: timeout)
    }

    @Test func reportsEachRevocationWithItsStatusAndBoundsIt() async throws {
        http.route("https://idp.test/revoke") { _ in HTTPClientResponse(status: 200, headers: [:], body: []) }
        try await operations().revoke(provider: "test", token: "rt-value", tokenTypeHint: .refreshToken)
        #expect(observer.recorded == ["test revocation 200"])
        let request = try #require(http.requests(to: "https://idp.test/revoke").first)
        #expect(request.timeout == 10)
        #expect(String(decoding: request.body ?? [], as: UTF8.self).contains("token_type_hint=refresh_token"))
    }

    @Test func reportsARefusedRevocationAndThrowsItsStatus() async throws {
        http.route("https://idp.test/revoke") { _ in
            TestIdentityProvider.json(["error": "unsupported_token_type"], status: 400)
        }
        let error = await #expect(throws: SignInError.self) {
            try await operations().revoke(provider: "test", token: "at-value", tokenTypeHint: .accessToken)
        }
        #expect(error?.code == .revocationFailed)
        #expect(error?.upstreamStatus == 400)
        #expect(error?.providerError == "unsupported_token_type")
        #expect(observer.recorded == ["test revocation 400"])
    }

    @Test func reportsAnUnreachableProviderWithoutAStatus() async throws {
        http.route("https://idp.test/revoke") { _ in
            throw HTTPClientError(code: .timeout, message: "expected an answer within 10 s, found none")
        }
        let error = await #expect(throws: SignInError.self) {
            try await operations().revoke(provider: "test", token: "rt-value")
        }
        #expect(error?.code == .providerUnreachable)
        #expect(observer.recorded == ["test revocation error"])
    }

    @Test func reportsRefreshesAndLeavesTheClientTimeoutWithoutABound() async throws {
        http.route("https://idp.test/token") { _ in TestIdentityProvider.json(["access_token": "at-new"]) }
        _ = try await operations(timeout: nil).refresh(provider: "test", refreshToken: "rt-value")
        #expect(observer.recorded == ["test token 200"])
        #expect(http.requests(to: "https://idp.test/token").first?.timeout == nil)
    }
}
