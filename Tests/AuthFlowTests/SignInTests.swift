import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import Foundation
import Synchronization
import Testing

/// A flow store whose backend is down.
private struct BrokenFlowStore: FlowStore {
    func markSpent(state: String, until: Date) async throws(FlowStoreError) -> Bool {
        throw FlowStoreError(.backendFailure, "connection refused")
    }
    func checkHealth() async throws(FlowStoreError) {
        throw FlowStoreError(.backendFailure, "connection refused")
    }
}

/// Counts-up random bytes, so every value differs and tests stay deterministic.
private final class CountingRandom: SecureRandom {
    private let counter = Mutex<UInt8>(0)
    func bytes(_ count: Int) -> [UInt8] {
        counter.withLock { value in
            value &+= 1
            return [UInt8](repeating: value, count: count)
        }
    }
}

/// The async driver against an in-process fake HTTP client (the test is about the driver, not the network).
@Suite struct SignInTests {
    let clock = ManualClock(TestIdentityProvider.start)
    let http = FakeHTTPClient()
    let idp = TestIdentityProvider.shared
    let store: InMemoryFlowStore

    init() {
        store = InMemoryFlowStore(clock: clock)
    }

    func signIn(_ capabilities: [String: Bool], store: (any FlowStore)? = nil) throws -> SignIn {
        SignIn(
            providers: [try TestProviders.resolve(capabilities)], httpClient: http, flowStore: store ?? self.store,
            clock: clock, random: CountingRandom())
    }

    /// Serves tokens whose id_token carries the nonce of the authorization URL.
    func serveProvider(nonce: String?, keys: JWKSet? = nil, signer: JWK? = nil) {
        let idp = self.idp
        let now = clock.now()
        http.route("https://idp.test/token") { _ in
            let token = try nonce.map { try idp.sign(idp.claims(nonce: $0, now: now), with: signer) }
            return TestIdentityProvider.tokenResponse(idToken: token)
        }
        let body = TestIdentityProvider.jwksBody(keys ?? idp.keySet)
        http.route("https://idp.test/jwks") { _ in
            HTTPClientResponse(status: 200, headers: ["Cache-Control": "max-age=3600"], body: body)
        }
        http.route("https://idp.test/userinfo") { _ in TestIdentityProvider.userinfo() }
    }

    func callback(for start: SignInStart, extra: [(String, String)] = []) -> CallbackParameters {
        CallbackParameters([("code", "auth-code-value"), ("state", start.state)] + extra)
    }

    @Test func signsInWithOIDCAndCachesTheKeySet() async throws {
        let driver = try signIn(["oidc": true, "pkce": true])
        let binding = driver.newBrowserBinding()
        for round in 0..<2 {
            let start = try await driver.begin(provider: "test", returnTo: "/r\(round)", browserBinding: binding)
            let query = Query.parameters(ofURL: start.redirectURL)
            #expect(query["state"] == start.state)
            #expect(start.expiresAt == clock.now().addingTimeInterval(600))
            serveProvider(nonce: query["nonce"])
            let result = try await driver.complete(
                provider: "test", method: .get, parameters: callback(for: start), flowRecord: start.record)
            #expect(result.identity.subject == TestIdentityProvider.subject)
            #expect(result.identity.source == .idToken)
            #expect(result.returnTo == "/r\(round)")
            let jwks = try #require(result.trace.first { $0.step == .jwks })
            #expect(jwks.providerRoundTrip == (round == 0))
        }
        #expect(http.requests(to: "https://idp.test/jwks").count == 1)
        #expect(http.requests(to: "https://idp.test/userinfo").isEmpty)
        let exchange = try #require(http.requests(to: "https://idp.test/token").first)
        #expect(Query.form(exchange.body)["code_verifier"]?.count == 43)
    }

    @Test func refetchesTheKeySetWhenTheProviderRotatesKeys() async throws {
        let driver = try signIn(["oidc": true])
        let binding = driver.newBrowserBinding()
        // Warm the cache with the old set.
        var start = try await driver.begin(provider: "test", returnTo: nil, browserBinding: binding)
        serveProvider(nonce: Query.parameters(ofURL: start.redirectURL)["nonce"])
        _ = try await driver.complete(
            provider: "test", method: .get, parameters: callback(for: start), flowRecord: start.record)
        // The provider now signs with a new key.
        clock.advance(by: 30)
        start = try await driver.begin(provider: "test", returnTo: nil, browserBinding: binding)
        serveProvider(
            nonce: Query.parameters(ofURL: start.redirectURL)["nonce"], keys: idp.rotatedKeySet, signer: idp.otherKey)
        let result = try await driver.complete(
            provider: "test", method: .get, parameters: callback(for: start), flowRecord: start.record)
        #expect(result.identity.subject == TestIdentityProvider.subject)
        #expect(http.requests(to: "https://idp.test/jwks").count == 2)
    }

    @Test func rateLimitsUnknownKidRefetches() async throws {
        let driver = try signIn(["oidc": true])
        let stranger = try JWK.generateRSA(keyID: "k-unknown")
        for round in 0..<3 {
            let start = try await driver.begin(provider: "test", returnTo: nil, browserBinding: "b1")
            serveProvider(nonce: Query.parameters(ofURL: start.redirectURL)["nonce"], signer: stranger)
            do {
                _ = try await driver.complete(
                    provider: "test", method: .get, parameters: callback(for: start), flowRecord: start.record)
                Issue.record("expected round \(round) to be refused")
            } catch {
                #expect(error.code == .idTokenInvalid)
                #expect(error.joseCode == .keyNotFound)
            }
            clock.advance(by: 1)
        }
        // One initial fetch, one refetch for the unknown kid; later rounds fall inside the 10 s interval.
        #expect(http.requests(to: "https://idp.test/jwks").count == 2)
    }

    /// Signs in with an id_token signed by `signer`, expecting a refusal.
    func refusedSignIn(_ driver: SignIn, signer: JWK) async throws -> SignInError {
        let start = try await driver.begin(provider: "test", returnTo: nil, browserBinding: "b1")
        serveProvider(nonce: Query.parameters(ofURL: start.redirectURL)["nonce"], signer: signer)
        do {
            _ = try await driver.complete(
                provider: "test", method: .get, parameters: callback(for: start), flowRecord: start.record)
        } catch {
            return error
        }
        Issue.record("expected the sign-in to be refused")
        throw HarnessError.unexpected
    }

    @Test func refetchesOnceForAnUnknownKidThenFailsTyped() async throws {
        let driver = try signIn(["oidc": true])
        let error = try await refusedSignIn(driver, signer: try JWK.generateRSA(keyID: "k-unknown"))
        #expect(error.code == .idTokenInvalid)
        #expect(error.joseCode == .keyNotFound)
        #expect(error.statusHint == 401)
        // The cold fetch, then exactly one refetch for the unknown kid, within one sign-in.
        #expect(http.requests(to: "https://idp.test/jwks").count == 2)
        let keys = try #require(error.trace.first { $0.step == .jwks })
        #expect(keys.providerRoundTrip)
        #expect(keys.detail == "1 key(s), refetched for an unknown kid")
        #expect(error.trace.last?.step == .idTokenVerification)
        #expect(error.trace.filter { $0.step == .jwks }.count == 1)
    }

    @Test func aSecondUnknownKidWithinTheRefetchIntervalDoesNotRefetch() async throws {
        let driver = try signIn(["oidc": true])
        _ = try await refusedSignIn(driver, signer: try JWK.generateRSA(keyID: "k-first"))
        #expect(http.requests(to: "https://idp.test/jwks").count == 2)
        // Another kid the set lacks, 9 s later: refused from the cached set, no request to the provider.
        clock.advance(by: 9)
        let second = try await refusedSignIn(driver, signer: try JWK.generateRSA(keyID: "k-second"))
        #expect(second.code == .idTokenInvalid)
        #expect(second.joseCode == .keyNotFound)
        #expect(http.requests(to: "https://idp.test/jwks").count == 2)
        let keys = try #require(second.trace.first { $0.step == .jwks })
        #expect(!keys.providerRoundTrip)
        // Past the interval, an unknown kid may refetch again.
        clock.advance(by: 1)
        _ = try await refusedSignIn(driver, signer: try JWK.generateRSA(keyID: "k-third"))
        #expect(http.requests(to: "https://idp.test/jwks").count == 3)
    }

    @Test func signsInWithOAuth2Userinfo() async throws {
        let driver = try signIn([:])
        let start = try await driver.begin(provider: "test", returnTo: "/", intent: .register, browserBinding: "b1")
        serveProvider(nonce: nil)
        let result = try await driver.complete(
            provider: "test", method: .get, parameters: callback(for: start), flowRecord: start.record)
        #expect(result.identity.source == .userinfo)
        #expect(result.intent == .register)
        let userinfo = try #require(http.requests(to: "https://idp.test/userinfo").first)
        #expect(userinfo.headers["Authorization"] == "Bearer at-secret-value")
    }

    @Test func refusesAReplayedCallback() async throws {
        let driver = try signIn([:])
        let start = try await driver.begin(provider: "test", returnTo: nil, browserBinding: "b1")
        serveProvider(nonce: nil)
        _ = try await driver.complete(
            provider: "test", method: .get, parameters: callback(for: start), flowRecord: start.record)
        await #expect(throws: SignInError.self) {
            try await driver.complete(
                provider: "test", method: .get, parameters: callback(for: start), flowRecord: start.record)
        }
        do {
            _ = try await driver.complete(
                provider: "test", method: .get, parameters: callback(for: start), flowRecord: start.record)
        } catch {
            #expect(error.code == .invalidState)
        }
        #expect(http.requests(to: "https://idp.test/token").count == 1)
    }

    @Test func refusesExpiredFlows() async throws {
        let driver = try signIn([:])
        let start = try await driver.begin(provider: "test", returnTo: nil, browserBinding: "b1")
        clock.advance(by: 601)
        do {
            _ = try await driver.complete(
                provider: "test", method: .get, parameters: callback(for: start), flowRecord: start.record)
            Issue.record("expected an expired flow to be refused")
        } catch {
            #expect(error.code == .stateExpired)
        }
        #expect(http.requests.isEmpty)
    }

    @Test func handsTheUnverifiedProfileOverBeforeTheExchangeCanFail() async throws {
        let driver = try signIn(["form_post": true])
        let start = try await driver.begin(provider: "test", returnTo: nil, browserBinding: "b1")
        http.route("https://idp.test/token") { _ in TestIdentityProvider.json(["error": "invalid_grant"], status: 400) }
        let seen = Mutex<[UnverifiedProfile]>([])
        let tokenCallsWhenSeen = Mutex<Int>(-1)
        let http = self.http
        do {
            _ = try await driver.complete(
                provider: "test", method: .post, parameters: callback(for: start, extra: [("user_name", "Ada")]),
                flowRecord: start.record
            ) { profile in
                seen.withLock { $0.append(profile) }
                tokenCallsWhenSeen.withLock { $0 = http.requests(to: "https://idp.test/token").count }
            }
            Issue.record("expected the token endpoint error")
        } catch {
            #expect(error.code == .tokenEndpointError)
            #expect(error.providerError == "invalid_grant")
        }
        #expect(seen.withLock { $0.map(\.firstName) } == ["Ada"])
        #expect(tokenCallsWhenSeen.withLock { $0 } == 0)
    }

    @Test func neverHandsOutAProfileForAForeignBrowser() async throws {
        let driver = try signIn(["form_post": true])
        let start = try await driver.begin(provider: "test", returnTo: nil, browserBinding: "b1")
        let calls = Mutex<Int>(0)
        do {
            _ = try await driver.complete(
                provider: "test", method: .post, parameters: callback(for: start, extra: [("user_name", "Mallory")]),
                flowRecord: nil
            ) { _ in calls.withLock { $0 += 1 } }
            Issue.record("expected the binding check to refuse")
        } catch {
            #expect(error.code == .browserBindingMismatch)
        }
        #expect(calls.withLock { $0 } == 0)
        #expect(http.requests.isEmpty)
    }

    @Test func stopsWhenTheProfileCannotBeStored() async throws {
        struct StorageDown: Error {}
        let driver = try signIn([:])
        let start = try await driver.begin(provider: "test", returnTo: nil, browserBinding: "b1")
        serveProvider(nonce: nil)
        do {
            _ = try await driver.complete(
                provider: "test", method: .get, parameters: callback(for: start, extra: [("user_name", "Ada")]),
                flowRecord: start.record
            ) { _ in throw StorageDown() }
            Issue.record("expected the sign-in to stop")
        } catch {
            #expect(error.code == .unverifiedProfileNotStored)
        }
        #expect(http.requests.isEmpty)
    }

    @Test func refusesUnknownProviders() async throws {
        let driver = try signIn([:])
        await #expect(
            throws: SignInError(
                .unknownProvider, "expected a configured provider name, found one that is not configured")
        ) {
            try await driver.begin(provider: "nope", returnTo: nil, browserBinding: "b")
        }
    }

    @Test func mapsTransportFailures() async throws {
        struct Down: Error {}
        let driver = try signIn([:])
        let start = try await driver.begin(provider: "test", returnTo: nil, browserBinding: "b1")
        http.route("https://idp.test/token") { _ in throw Down() }
        do {
            _ = try await driver.complete(
                provider: "test", method: .get, parameters: callback(for: start), flowRecord: start.record)
            Issue.record("expected a transport failure")
        } catch {
            #expect(error.code == .providerUnreachable)
        }
    }

    @Test func mapsAnUnavailableKeySet() async throws {
        let driver = try signIn(["oidc": true])
        let start = try await driver.begin(provider: "test", returnTo: nil, browserBinding: "b1")
        serveProvider(nonce: Query.parameters(ofURL: start.redirectURL)["nonce"])
        http.route("https://idp.test/jwks") { _ in HTTPClientResponse(status: 503, headers: [:], body: []) }
        do {
            _ = try await driver.complete(
                provider: "test", method: .get, parameters: callback(for: start), flowRecord: start.record)
            Issue.record("expected the JWKS failure")
        } catch {
            #expect(error.code == .jwksUnavailable)
        }
    }

    @Test func mapsFlowStoreFailures() async throws {
        let driver = try signIn([:], store: BrokenFlowStore())
        // A start needs no store at all.
        let start = try await driver.begin(provider: "test", returnTo: nil, browserBinding: "b1")
        do {
            _ = try await driver.complete(
                provider: "test", method: .get, parameters: callback(for: start), flowRecord: start.record)
            Issue.record("expected the store failure")
        } catch {
            #expect(error.code == .flowStoreUnavailable)
            #expect(error.statusHint == 503)
        }
        #expect(http.requests.isEmpty)
    }

    @Test func startsStoreNothing() async throws {
        let driver = try signIn([:])
        for _ in 0..<100 { _ = try await driver.begin(provider: "test", returnTo: "/", browserBinding: "b1") }
        #expect(await store.count == 0)
    }

    @Test func aCallbackWithoutTheCookieDoesNotSpendTheVictimsState() async throws {
        let driver = try signIn([:])
        let start = try await driver.begin(provider: "test", returnTo: nil, browserBinding: "b1")
        serveProvider(nonce: nil)
        // The attacker knows the state but has no cookie: refused, and nothing is spent.
        await #expect(throws: SignInError.self) {
            try await driver.complete(
                provider: "test", method: .get, parameters: callback(for: start), flowRecord: nil)
        }
        #expect(await store.count == 0)
        // The victim's own callback still succeeds.
        let result = try await driver.complete(
            provider: "test", method: .get, parameters: callback(for: start), flowRecord: start.record)
        #expect(result.identity.subject == TestIdentityProvider.subject)
        #expect(await store.count == 1)
    }

    @Test func generatesDistinctStatesAndBindings() async throws {
        let driver = try signIn([:])
        let a = try await driver.begin(provider: "test", returnTo: nil, browserBinding: "b1")
        let b = try await driver.begin(provider: "test", returnTo: nil, browserBinding: "b1")
        #expect(a.state != b.state)
        #expect(a.state.count == 43)
        #expect(driver.newBrowserBinding() != driver.newBrowserBinding())
    }
}
