import Synchronization
import Testing

@testable import AuthFlowJOSE

/// Records what a ``JWKSCache`` reports.
final class RecordingJWKSObserver: JWKSCacheObserver {
    let events = Mutex<[String]>([])
    func jwksFetchStarted(reason: JWKSFetchReason) { events.withLock { $0.append("fetch " + reason.rawValue) } }
    func jwksStaleServed() { events.withLock { $0.append("stale") } }
    var recorded: [String] { events.withLock { $0 } }
}

@Suite("JWKS cache observer")
struct JWKSCacheObserverTests {
    let verifier = JWTVerifier(
        allowedAlgorithms: [.es256, .rs256, .edDSA],
        checks: ClaimChecks(issuers: [TestKeys.issuer], audiences: [TestKeys.audience]))

    @Test func reportsEachFetchWithItsReason() async throws {
        let clock = ManualClock(TestKeys.now)
        let endpoint = FakeJWKSEndpoint(keys: [TestKeys.rsa], maxAge: 600)
        let observer = RecordingJWKSObserver()
        let cache = JWKSCache(clock: clock, observer: observer, fetch: { try endpoint.fetch() })
        _ = try await cache.verify(TestKeys.idToken(key: TestKeys.rsa), with: verifier)
        _ = try await cache.verify(TestKeys.idToken(key: TestKeys.rsa), with: verifier)
        endpoint.serve([TestKeys.rsa, TestKeys.ec])
        _ = try await cache.verify(TestKeys.idToken(key: TestKeys.ec), with: verifier)
        clock.advance(by: 601)
        _ = try await cache.verify(TestKeys.idToken(key: TestKeys.ec), with: verifier)
        #expect(observer.recorded == ["fetch cold", "fetch unknown_kid", "fetch expired"])
        #expect(endpoint.calls == 3)
    }

    @Test func reportsStaleSetsServedWhileTheEndpointFails() async throws {
        let clock = ManualClock(TestKeys.now)
        let endpoint = FakeJWKSEndpoint(keys: [TestKeys.ec], maxAge: 60)
        let observer = RecordingJWKSObserver()
        let cache = JWKSCache(clock: clock, observer: observer, fetch: { try endpoint.fetch() })
        _ = try await cache.keySet()
        endpoint.fail(true)
        clock.advance(by: 120)
        _ = try await cache.keySet()  // refetch fails: the old set, stale
        clock.advance(by: 5)
        _ = try await cache.keySet()  // backing off: the old set again, stale, no fetch
        #expect(observer.recorded == ["fetch cold", "fetch expired", "stale", "stale"])
        #expect(endpoint.calls == 2)
    }

    @Test func reportsNothingStaleWithoutAnEarlierSet() async {
        let clock = ManualClock(TestKeys.now)
        let endpoint = FakeJWKSEndpoint(keys: [TestKeys.ec])
        endpoint.fail(true)
        let observer = RecordingJWKSObserver()
        let cache = JWKSCache(clock: clock, observer: observer, fetch: { try endpoint.fetch() })
        await #expect(throws: JOSEError.self) { _ = try await cache.keySet() }
        #expect(observer.recorded == ["fetch cold"])
    }
}
