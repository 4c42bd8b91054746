import AuthFlowJOSE
import AuthFlowStoreTestSupport
import AuthFlowStores
import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlowRedis

extension RedisClient {
    /// Every key under this client's prefix (SCAN, bounded).
    func keys() async throws -> [String] {
        var cursor = "0"
        var keys: [String] = []
        for _ in 0..<1000 {
            let reply = try await command(
                ["SCAN", cursor, "MATCH", prefix + "*", "COUNT", "1000"].map { Array($0.utf8) }, operation: "test")
            guard case .array(let parts) = reply, parts.count == 2, let next = parts[0].bytes,
                case .array(let found) = parts[1]
            else { throw StoreError(.corruptData, "expected a SCAN reply") }
            keys += found.compactMap(\.bytes).map { String(decoding: $0, as: UTF8.self) }
            cursor = String(decoding: next, as: UTF8.self)
            if cursor == "0" { break }
        }
        return keys
    }
}

/// What only a shared Redis can show: two instances (each with its own client) on one server, keys holding only
/// digests, rate limits, URL parsing, an unreachable server and recovery after the server drops connections.
@Suite(.enabled(if: TestDatabases.redisURL != nil || TestDatabases.required))
struct RedisStoreTests {
    static func record(_ user: UserID = .alice, _ identity: IdentityKey = .appleAlice) -> SessionRecord {
        SessionRecord(
            userID: user, provider: identity.provider, subject: identity.subject, createdAt: StoreHarness.start,
            expiresAt: StoreHarness.start + 3600)
    }

    @Test func aSessionMadeOnOneInstanceIsValidOnTheOtherUntilLoggedOutThere() async throws {
        let first = try TestDatabases.freshRedisClient()
        let url = try #require(TestDatabases.redisURL)
        let second = try RedisClient(endpoint: try RedisEndpoint(url: url), prefix: first.prefix)
        let clock = ManualClock(StoreHarness.start)
        let a = RedisSessionStore(client: first, clock: clock)
        let b = RedisSessionStore(client: second, clock: clock)
        try await a.createSession(id: "cookie-on-a", record: Self.record())
        #expect(try await b.session(id: "cookie-on-a") == Self.record())
        #expect(try await b.deleteSession(id: "cookie-on-a"))
        #expect(try await a.session(id: "cookie-on-a") == nil)
        try await a.createSession(id: "a1", record: Self.record())
        try await b.createSession(id: "b1", record: Self.record(.alice, .googleAlice))
        #expect(try await b.deleteSessions(userID: .alice) == 2)
        #expect(try await a.session(id: "a1") == nil)
    }

    @Test func keysAndValuesHoldNoSessionIDOrUserID() async throws {
        let client = try TestDatabases.freshRedisClient()
        let store = RedisSessionStore(client: client, clock: ManualClock(StoreHarness.start))
        try await store.createSession(id: "secret-cookie-value", record: Self.record())
        let keys = try await client.keys()
        #expect(keys.count == 3)
        for key in keys {
            #expect(!key.contains("secret-cookie-value") && !key.contains("u-alice") && !key.contains("alice.1321"))
            #expect(key.hasPrefix(client.prefix))
        }
        #expect(keys.contains { $0.hasPrefix(client.prefix + "session:") })
    }

    @Test func rateLimitsWithATokenBucketSharedByInstances() async throws {
        let first = try TestDatabases.freshRedisClient()
        let url = try #require(TestDatabases.redisURL)
        let second = try RedisClient(endpoint: try RedisEndpoint(url: url), prefix: first.prefix)
        let clock = ManualClock(StoreHarness.start)
        // A slow refill: Redis expires an idle bucket after the (real) time it takes to fill up, here 400 s, so a
        // slow run cannot expire it while the manual clock stands still.
        let stores = [first, second].map { RedisRateLimitStore(client: $0, clock: clock) }
        let allowed = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<10 {
                let store = stores[index % 2]
                group.addTask { try await store.consume(key: "client-a", capacity: 4, refillPerSecond: 0.01).allowed }
            }
            var count = 0
            for try await was in group where was { count += 1 }
            return count
        }
        #expect(allowed == 4)
        #expect(
            try await stores[0].consume(key: "client-a", capacity: 4, refillPerSecond: 0.01)
                == RateLimitDecision(allowed: false, retryAfter: 100))
        #expect(try await stores[1].consume(key: "client-b", capacity: 4, refillPerSecond: 0.01).allowed)
        clock.advance(by: 100)
        #expect(try await stores[1].consume(key: "client-a", capacity: 4, refillPerSecond: 0.01).allowed)
        #expect(try await stores[0].consume(key: "client-a", capacity: 4, refillPerSecond: 0.01).allowed == false)
        let invalid = await storeError { () throws(StoreError) in
            try await stores[0].consume(key: "client-a", capacity: 4, refillPerSecond: 0)
        }
        #expect(invalid?.code == .invalidValue)
    }

    @Test func parsesRedisAndUnixURLsWithoutEchoingPasswords() throws {
        let tcp = try RedisEndpoint(url: "redis://app:s3cret@cache.internal:6380/2")
        #expect(tcp.address == .tcp(host: "cache.internal", port: 6380))
        #expect(tcp.user == "app" && tcp.password == "s3cret" && tcp.database == 2)
        #expect(!tcp.description.contains("s3cret"))
        let passwordOnly = try RedisEndpoint(url: "redis://:pw@127.0.0.1")
        #expect(passwordOnly.user == nil && passwordOnly.password == "pw" && passwordOnly.database == 0)
        let unix = try RedisEndpoint(url: "unix:///run/redis/redis.sock?db=3&password=pw")
        #expect(unix.address == .unix(path: "/run/redis/redis.sock") && unix.database == 3 && unix.password == "pw")
        for bad in ["http://cache", "rediss://cache", "redis:///0", "redis://cache/x", "not a url"] {
            let error = #expect(throws: StoreError.self, "\(bad)") { try RedisEndpoint(url: bad) }
            #expect(error?.code == .invalidValue)
        }
    }

    @Test func anUnreachableServerIsATypedErrorNotAHang() throws {
        let error = #expect(throws: StoreError.self) {
            try RedisClient(endpoint: try RedisEndpoint(url: "redis://127.0.0.1:1"), connectTimeout: 2)
        }
        #expect(error?.code == .backendFailure)
    }

    @Test func recoversByItselfAfterTheServerDropsItsConnections() async throws {
        let client = try TestDatabases.freshRedisClient()
        let store = RedisSessionStore(client: client, clock: ManualClock(StoreHarness.start))
        try await store.createSession(id: "c1", record: Self.record())
        // What a server restart does to clients: the client's pooled connection is closed by the server.
        let id = try #require(
            try await client.command([Array("CLIENT".utf8), Array("ID".utf8)], operation: "test").integer)
        let other = try TestDatabases.freshRedisClient()
        let killed = try await other.command(
            ["CLIENT", "KILL", "ID", String(id)].map { Array($0.utf8) }, operation: "test")
        #expect(killed.integer == 1)
        #expect(try await store.session(id: "c1") != nil)
        try await store.checkHealth()
    }

    /// As many operations at once as there are handler threads (64), on a Redis that answers, all complete: the
    /// cap on operations under way bounds a stalled Redis, never ordinary load (at 32, 64 connections of checks
    /// got 503 `busy` from a healthy Redis).
    @Test func asManyOperationsAsHandlerThreadsAtOnceAllCompleteOnAHealthyServer() async throws {
        let client = try TestDatabases.freshRedisClient()
        let failures = await Self.concurrentSlowCommands(client, count: 64)
        #expect(failures == [])
    }

    /// Sixty-four commands at once, each waiting 50 ms in Redis (so they overlap on the four pooled
    /// connections); the failures' messages.
    static func concurrentSlowCommands(_ client: RedisClient, count: Int) async -> [String] {
        let key = client.prefix + "test:empty-list"
        return await withTaskGroup(of: String?.self) { group in
            for _ in 0..<count {
                group.addTask {
                    do {
                        _ = try await client.command(
                            ["BLPOP", key, "0.05"].map { Array($0.utf8) }, operation: "test")
                        return nil
                    } catch {
                        return "\(error)"
                    }
                }
            }
            var failures: [String] = []
            for await failure in group { if let failure { failures.append(failure) } }
            return failures
        }
    }

    /// Thirty sign-ins of one user, each ended by logout or by expiry but the last, leave only the live session in
    /// the user's and the identity's sets (they used to keep every session ever made).
    @Test func indexSetsKeepOnlyLiveSessions() async throws {
        let client = try TestDatabases.freshRedisClient()
        let store = RedisSessionStore(client: client, clock: ManualClock(StoreHarness.start))
        let shortLived = SessionRecord(
            userID: .alice, provider: IdentityKey.appleAlice.provider, subject: IdentityKey.appleAlice.subject,
            createdAt: StoreHarness.start, expiresAt: StoreHarness.start + 0.05, providerSessionID: "sid-1")
        for index in 0..<10 { try await store.createSession(id: "expiring-\(index)", record: shortLived) }
        // Redis expires them on its own clock (50 ms): wait until every key they wrote is gone.
        try await waitUntil("the short-lived sessions to expire in Redis") { try await client.keys().isEmpty }
        for index in 0..<19 {
            try await store.createSession(id: "ended-\(index)", record: Self.record())
            #expect(try await store.deleteSession(id: "ended-\(index)"))
        }
        try await store.createSession(id: "live", record: Self.record())
        let keys = try await client.keys()
        #expect(keys.count == 3, "the live session, the user's set, the identity's set: \(keys.count) keys")
        for key in keys where !key.hasPrefix(client.prefix + "session:") {
            let members = try await client.command(["SCARD", key].map { Array($0.utf8) }, operation: "test")
            #expect(members.integer == 1)
        }
        #expect(try await store.deleteSessions(userID: .alice) == 1)
    }

    /// A spent state's key outlives its flow by the clock-skew margin (Redis expires it on its own clock, so the
    /// check is only that it lives longer than the flow: a slow run takes real seconds off the TTL).
    @Test func spentStatesOutliveTheirFlowByTheSkewMargin() async throws {
        let client = try TestDatabases.freshRedisClient()
        let clock = ManualClock(StoreHarness.start)
        let store = RedisFlowStore(client: client, clock: clock)
        #expect(try await store.markSpent(state: "s1", until: StoreHarness.start + 600))
        let key = try #require(try await client.keys().first)
        let ttl = try await client.command(["PTTL", key].map { Array($0.utf8) }, operation: "test").integer
        #expect((ttl ?? 0) > 600_000)
        #expect((ttl ?? 0) <= Int64((600 + FlowStoreKey.clockSkewMargin) * 1000))
    }
}
