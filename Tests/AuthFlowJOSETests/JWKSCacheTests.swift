import AuthFlowTestSupport
import Foundation
import Synchronization
import Testing

@testable import AuthFlowJOSE

/// A scripted JWKS endpoint: serves whatever document is current, or fails, and counts calls.
final class FakeJWKSEndpoint: Sendable {
    struct State {
        var document: JSONValue
        var maxAge: Int? = nil
        var failing = false
        var calls = 0
    }
    let state: Mutex<State>

    init(keys: [JWK], maxAge: Int? = nil) {
        state = Mutex(State(document: ["keys": .array(keys.map { $0.jsonValue() })], maxAge: maxAge))
    }

    func serve(_ keys: [JWK]) { state.withLock { $0.document = ["keys": .array(keys.map { $0.jsonValue() })] } }
    func serve(document: JSONValue) { state.withLock { $0.document = document } }
    func fail(_ failing: Bool) { state.withLock { $0.failing = failing } }
    var calls: Int { state.withLock { $0.calls } }

    struct Down: Error {}

    func fetch() throws -> JWKSFetchResult {
        try state.withLock { state throws(Down) -> JWKSFetchResult in
            state.calls += 1
            if state.failing { throw Down() }
            return JWKSFetchResult(body: state.document.serializedBytes(), maxAge: state.maxAge)
        }
    }
}

@Suite("JWKS cache")
struct JWKSCacheTests {
    let verifier = JWTVerifier(
        allowedAlgorithms: [.es256, .rs256, .edDSA],
        checks: ClaimChecks(issuers: [TestKeys.issuer], audiences: [TestKeys.audience]))

    func makeCache(_ endpoint: FakeJWKSEndpoint, clock: ManualClock) -> JWKSCache {
        JWKSCache(clock: clock, fetch: { try endpoint.fetch() })
    }

    @Test func fetchesOnceAndServesFromCacheWithinTTL() async throws {
        let clock = ManualClock(TestKeys.now)
        let endpoint = FakeJWKSEndpoint(keys: [TestKeys.ec], maxAge: 600)
        let cache = makeCache(endpoint, clock: clock)
        for _ in 0..<5 { _ = try await cache.verify(TestKeys.idToken(), with: verifier) }
        #expect(endpoint.calls == 1)
        clock.advance(by: 601)
        _ = try await cache.verify(TestKeys.idToken(), with: verifier)
        #expect(endpoint.calls == 2)
    }

    @Test func clampsMaxAgeToFloorAndCap() async throws {
        let clock = ManualClock(TestKeys.now)
        let endpoint = FakeJWKSEndpoint(keys: [TestKeys.ec], maxAge: 1)
        let cache = JWKSCache(clock: clock, minimumTTL: 60, maximumTTL: 3600, fetch: { try endpoint.fetch() })
        _ = try await cache.keySet()
        clock.advance(by: 30)
        _ = try await cache.keySet()
        #expect(endpoint.calls == 1)  // 1 s max-age raised to the 60 s floor
        clock.advance(by: 31)
        _ = try await cache.keySet()
        #expect(endpoint.calls == 2)
        endpoint.state.withLock { $0.maxAge = 1_000_000 }
        clock.advance(by: 61)
        _ = try await cache.keySet()
        clock.advance(by: 3601)
        _ = try await cache.keySet()
        #expect(endpoint.calls == 4)  // a huge max-age is capped at 3600 s
    }

    @Test func refetchesOnceOnUnknownKidThenSucceeds() async throws {
        let clock = ManualClock(TestKeys.now)
        let endpoint = FakeJWKSEndpoint(keys: [TestKeys.rsa], maxAge: 3600)
        let cache = makeCache(endpoint, clock: clock)
        _ = try await cache.verify(TestKeys.idToken(key: TestKeys.rsa), with: verifier)
        #expect(endpoint.calls == 1)
        // The provider rotates to a new key; the next token names a kid the cache has not seen.
        endpoint.serve([TestKeys.rsa, TestKeys.ec])
        let claims = try await cache.verify(TestKeys.idToken(key: TestKeys.ec), with: verifier)
        #expect(claims.subject == "user-1")
        #expect(endpoint.calls == 2)
        #expect(await cache.fetchCount == 2)
    }

    @Test func rateLimitsRefetchesForUnknownKids() async throws {
        let clock = ManualClock(TestKeys.now)
        let endpoint = FakeJWKSEndpoint(keys: [TestKeys.rsa], maxAge: 3600)
        let cache = makeCache(endpoint, clock: clock)
        let stranger = TestKeys.idToken(key: TestKeys.otherEC)
        for _ in 0..<5 {
            await #expect(throws: JOSEError.self) { _ = try await cache.verify(stranger, with: verifier) }
        }
        #expect(endpoint.calls == 2)  // initial fetch + one refetch, however many unknown kids arrive
        clock.advance(by: 10)
        await #expect(throws: JOSEError.self) { _ = try await cache.verify(stranger, with: verifier) }
        #expect(endpoint.calls == 3)
    }

    @Test func reportsWhereEachVerificationsKeysCameFrom() async throws {
        let clock = ManualClock(TestKeys.now)
        let endpoint = FakeJWKSEndpoint(keys: [TestKeys.rsa], maxAge: 3600)
        let cache = makeCache(endpoint, clock: clock)
        let cold = await cache.verification(of: TestKeys.idToken(key: TestKeys.rsa), with: verifier)
        #expect(try cold.result.get().subject == "user-1")
        #expect(cold.keySource == .fetched)
        #expect(cold.keyCount == 1)
        let warm = await cache.verification(of: TestKeys.idToken(key: TestKeys.rsa), with: verifier)
        #expect(warm.keySource == .cached)
        // A rotated key: one refetch, and the token verifies against the new set.
        endpoint.serve([TestKeys.rsa, TestKeys.ec])
        let rotated = await cache.verification(of: TestKeys.idToken(key: TestKeys.ec), with: verifier)
        #expect(try rotated.result.get().subject == "user-1")
        #expect(rotated.keySource == .refetchedForUnknownKey)
        #expect(rotated.keyCount == 2)
        #expect(endpoint.calls == 2)
        // Another unknown kid within the interval: refused from the cached set, typed, without a fetch.
        let stranger = await cache.verification(of: TestKeys.idToken(key: TestKeys.otherEC), with: verifier)
        #expect(stranger.keySource == .cached)
        #expect(throws: JOSEError.self) { try stranger.result.get() }
        if case .failure(let error) = stranger.result { #expect(error.code == .keyNotFound) }
        #expect(endpoint.calls == 2)
    }

    @Test func reportsNoKeySourceWhenNoSetCanBeHad() async throws {
        let endpoint = FakeJWKSEndpoint(keys: [TestKeys.ec])
        endpoint.fail(true)
        let cache = makeCache(endpoint, clock: ManualClock(TestKeys.now))
        let outcome = await cache.verification(of: TestKeys.idToken(), with: verifier)
        #expect(outcome.keySource == nil)
        if case .failure(let error) = outcome.result {
            #expect(error.code == .jwksUnavailable)
        } else {
            Issue.record("expected jwksUnavailable")
        }
    }

    @Test func servesLastGoodSetWhileEndpointFails() async throws {
        let clock = ManualClock(TestKeys.now)
        let endpoint = FakeJWKSEndpoint(keys: [TestKeys.ec], maxAge: 60)
        let cache = makeCache(endpoint, clock: clock)
        _ = try await cache.verify(TestKeys.idToken(), with: verifier)
        endpoint.fail(true)
        clock.advance(by: 120)
        _ = try await cache.verify(TestKeys.idToken(), with: verifier)
        #expect(endpoint.calls == 2)
        clock.advance(by: 5)
        _ = try await cache.verify(TestKeys.idToken(), with: verifier)
        #expect(endpoint.calls == 2)  // failing endpoint is not hammered
        // A garbage body is a failure too, not a replacement of the good set.
        endpoint.fail(false)
        endpoint.serve(document: "not a key set")
        clock.advance(by: 20)
        _ = try await cache.verify(TestKeys.idToken(), with: verifier)
        #expect(endpoint.calls == 3)
    }

    @Test func stopsServingAStaleSetPastTheStalenessBound() async throws {
        let clock = ManualClock(TestKeys.now)
        let endpoint = FakeJWKSEndpoint(keys: [TestKeys.ec], maxAge: 600)
        let cache = JWKSCache(clock: clock, maximumStaleness: 3600, fetch: { try endpoint.fetch() })
        _ = try await cache.verify(TestKeys.idToken(), with: verifier)
        endpoint.fail(true)
        // Expired 10 minutes after the fetch; stale but within the bound for another hour.
        clock.advance(by: 600 + 3000)
        #expect(try await cache.keySet().keys.count == 1)
        #expect(endpoint.calls == 2)
        clock.advance(by: 700)
        let error = await #expect(throws: JOSEError.self) { try await cache.keySet() }
        #expect(error?.code == .jwksUnavailable)
        #expect(error?.message.contains("staleness bound") == true)
        // The endpoint recovers: a fresh set is served again.
        endpoint.fail(false)
        clock.advance(by: 20)
        #expect(try await cache.keySet().keys.count == 1)
    }

    @Test func reportsUnavailableWithoutAnyGoodSet() async {
        let endpoint = FakeJWKSEndpoint(keys: [TestKeys.ec])
        endpoint.fail(true)
        let cache = makeCache(endpoint, clock: ManualClock(TestKeys.now))
        do {
            _ = try await cache.keySet()
            Issue.record("expected jwksUnavailable")
        } catch {
            #expect(error.code == .jwksUnavailable)
        }
    }

    @Test func namesTheFetchErrorThatDescribesItself() async {
        struct Refused: Error, CustomStringConvertible {
            var description: String { "tls_failure: certificate verify failed (https://keys.example/jwks)" }
        }
        let described = JWKSCache(clock: ManualClock(TestKeys.now), fetch: { throw Refused() })
        let error = await #expect(throws: JOSEError.self) { try await described.keySet() }
        #expect(error?.code == .jwksUnavailable)
        #expect(error?.message.contains("the fetch failed (tls_failure: certificate verify failed") == true)
        #expect(error?.message.contains("no earlier set is cached") == true)
        // An error without a description still says the fetch failed, and an unusable document names its code.
        let endpoint = FakeJWKSEndpoint(keys: [TestKeys.ec])
        endpoint.fail(true)
        let plain = await #expect(throws: JOSEError.self) {
            try await makeCache(endpoint, clock: ManualClock(TestKeys.now)).keySet()
        }
        #expect(plain?.message.contains("but the fetch failed and") == true)
        let unusable = JWKSCache(
            clock: ManualClock(TestKeys.now), fetch: { JWKSFetchResult(body: Array("[]".utf8), cacheControl: nil) })
        let invalid = await #expect(throws: JOSEError.self) { try await unusable.keySet() }
        #expect(invalid?.message.contains("the document was unusable (") == true)
    }

    @Test func backsOffBeforeAnySetWasFetched() async throws {
        let clock = ManualClock(TestKeys.now)
        let endpoint = FakeJWKSEndpoint(keys: [TestKeys.ec])
        endpoint.fail(true)
        let cache = makeCache(endpoint, clock: clock)
        for _ in 0..<50 {
            await #expect(throws: JOSEError.self) { _ = try await cache.keySet() }
            await #expect(throws: JOSEError.self) { _ = try await cache.verify(TestKeys.idToken(), with: verifier) }
        }
        // Fifty anonymous attempts within the interval cost one fetch.
        #expect(endpoint.calls == 1)
        clock.advance(by: 11)
        endpoint.fail(false)
        _ = try await cache.verify(TestKeys.idToken(), with: verifier)
        #expect(endpoint.calls == 2)
    }

    @Test func dropsSymmetricKeysFromRemoteSets() async throws {
        let secret = try JWK.symmetric([UInt8](repeating: 9, count: 32), keyID: "hmac")
        let endpoint = FakeJWKSEndpoint(keys: [])
        endpoint.serve(document: ["keys": [secret.exportPrivate(), TestKeys.ec.jsonValue()]])
        let cache = makeCache(endpoint, clock: ManualClock(TestKeys.now))
        let set = try await cache.keySet()
        #expect(set.keys.map(\.keyID) == ["ec-1"])
        let hmacToken = try JWT.sign(claims: TestKeys.claims(), key: secret)
        let lax = JWTVerifier(allowedAlgorithms: Set(JWSAlgorithm.allCases), checks: ClaimChecks())
        await #expect(throws: JOSEError.self) { _ = try await cache.verify(hmacToken, with: lax) }
    }

    @Test func sharesOneFetchBetweenConcurrentCallers() async throws {
        let endpoint = FakeJWKSEndpoint(keys: [TestKeys.ec])
        // The fetch is held in flight until every caller has started; a caller the cache sees only after it
        // ended finds the set cached (the manual clock never expires it), so one fetch serves all either way.
        let release = Latch()
        defer { release.open() }
        let started = StartCount()
        let cache = JWKSCache(
            clock: ManualClock(TestKeys.now),
            fetch: {
                await release.wait()
                return try endpoint.fetch()
            })
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    started.count.withLock { $0 += 1 }
                    _ = try await cache.keySet()
                }
            }
            try await waitUntil("the fetch in flight and every caller started") {
                release.waiting == 1 && started.count.withLock { $0 } == 8
            }
            release.open()
            try await group.waitForAll()
        }
        #expect(endpoint.calls == 1)
    }

    /// How many callers have started.
    final class StartCount: Sendable {
        let count = Mutex(0)
    }

    @Test func parsesCacheControl() {
        #expect(JWKSFetchResult.maxAge(cacheControl: "public, max-age=19652, must-revalidate, no-transform") == 19652)
        #expect(JWKSFetchResult.maxAge(cacheControl: "no-store") == 0)
        #expect(JWKSFetchResult.maxAge(cacheControl: "public") == nil)
        #expect(JWKSFetchResult(body: [], cacheControl: "max-age=\"30\"").maxAge == 30)
    }
}
