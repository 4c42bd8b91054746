import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import Foundation
import Synchronization
import Testing

/// Records what the driver reports, as short strings.
final class RecordingProviderObserver: ProviderObserver {
    let events = Mutex<[String]>([])
    var recorded: [String] { events.withLock { $0 } }

    func providerRequestFinished(provider: String, endpoint: ProviderRequestEndpoint, status: Int?, seconds: Double) {
        events.withLock { $0.append("\(provider) \(endpoint.rawValue) \(status.map(String.init) ?? "error")") }
    }
    func jwksFetchStarted(provider: String, reason: JWKSFetchReason) {
        events.withLock { $0.append("\(provider) jwks fetch \(reason.rawValue)") }
    }
    func jwksStaleServed(provider: String) { events.withLock { $0.append("\(provider) jwks stale") } }
}

/// The driver reports every provider request (endpoint, status) and JWKS fetch to its observer.
@Suite struct SignInObserverTests {
    let clock = ManualClock(TestIdentityProvider.start)
    let http = FakeHTTPClient()
    let idp = TestIdentityProvider.shared
    let observer = RecordingProviderObserver()

    func signIn(_ capabilities: [String: Bool]) throws -> SignIn {
        SignIn(
            providers: [try TestProviders.resolve(capabilities)], httpClient: http,
            flowStore: InMemoryFlowStore(clock: clock), clock: clock, observer: observer)
    }

    func serveProvider(nonce: String?, tokenStatus: Int = 200) {
        let idp = self.idp
        let now = clock.now()
        http.route("https://idp.test/token") { _ in
            guard tokenStatus == 200 else { return HTTPClientResponse(status: tokenStatus, headers: [:], body: []) }
            let token = try nonce.map { try idp.sign(idp.claims(nonce: $0, now: now), with: nil) }
            return TestIdentityProvider.tokenResponse(idToken: token)
        }
        let body = TestIdentityProvider.jwksBody(idp.keySet)
        http.route("https://idp.test/jwks") { _ in
            HTTPClientResponse(status: 200, headers: ["Cache-Control": "max-age=3600"], body: body)
        }
        http.route("https://idp.test/userinfo") { _ in TestIdentityProvider.userinfo() }
    }

    func complete(_ driver: SignIn, nonce: Bool, tokenStatus: Int = 200) async throws(SignInError) {
        let start = try await driver.begin(provider: "test", returnTo: nil, browserBinding: "b1")
        serveProvider(
            nonce: nonce ? Query.parameters(ofURL: start.redirectURL)["nonce"] : nil, tokenStatus: tokenStatus)
        _ = try await driver.complete(
            provider: "test", method: .get,
            parameters: CallbackParameters([("code", "auth-code-value"), ("state", start.state)]),
            flowRecord: start.record)
    }

    @Test func reportsTokenAndJWKSRequestsOfAnOIDCSignIn() async throws {
        let driver = try signIn(["oidc": true])
        try await complete(driver, nonce: true)
        try await complete(driver, nonce: true)
        #expect(observer.recorded == ["test token 200", "test jwks fetch cold", "test jwks 200", "test token 200"])
    }

    @Test func reportsTokenAndUserinfoRequestsOfAnOAuth2SignIn() async throws {
        let driver = try signIn([:])
        try await complete(driver, nonce: false)
        #expect(observer.recorded == ["test token 200", "test userinfo 200"])
    }

    @Test func reportsRefusedAndUnansweredRequests() async throws {
        let driver = try signIn([:])
        await #expect(throws: SignInError.self) { try await complete(driver, nonce: false, tokenStatus: 400) }
        struct Down: Error {}
        let start = try await driver.begin(provider: "test", returnTo: nil, browserBinding: "b1")
        http.route("https://idp.test/token") { _ in throw Down() }
        await #expect(throws: SignInError.self) {
            _ = try await driver.complete(
                provider: "test", method: .get,
                parameters: CallbackParameters([("code", "c"), ("state", start.state)]), flowRecord: start.record)
        }
        #expect(observer.recorded == ["test token 400", "test token error"])
    }
}
