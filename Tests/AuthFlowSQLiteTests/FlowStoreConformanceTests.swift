import AuthFlow
import AuthFlowJOSE
import Foundation
import Testing

@testable import AuthFlowPostgres
@testable import AuthFlowSQLite

/// ``FlowStore`` behaviour, run against the core's in-memory store and the SQLite store alike, plus what
/// only SQLite can show (single use across connections, a damaged row).
@Suite struct FlowStoreConformanceTests {
    final class Harness: Sendable {
        let clock = ManualClock(StoreHarness.start)
        let store: any FlowStore
        let directory: TemporaryDirectory?

        init(_ backend: StoreBackend) throws {
            switch backend {
            case .memory:
                store = InMemoryFlowStore(clock: clock)
                directory = nil
            case .sqlite:
                let directory = try TemporaryDirectory()
                store = SQLiteFlowStore(
                    database: try SQLiteDatabase(path: directory.path("flows.sqlite")), clock: clock)
                self.directory = directory
            case .postgres:
                store = PostgresFlowStore(
                    database: try PostgresDatabase(url: try TestDatabases.freshPostgresURL()), clock: clock)
                directory = nil
            case .redis:
                throw StoreError(.invalidValue, "Redis keeps no flow records: the suite runs on StoreBackend.available")
            }
        }
    }

    static func record(_ state: String, provider: String = "apple") -> FlowRecord {
        FlowRecord(
            provider: provider, state: state, nonce: "nonce-\(state)", pkceVerifier: nil, returnTo: "/account",
            browserBindingDigest: "binding-digest", intent: .link, createdAt: StoreHarness.start)
    }

    @Test(arguments: StoreBackend.available)
    func takesARecordExactlyOnce(_ backend: StoreBackend) async throws {
        let harness = try Harness(backend)
        try await harness.store.put(Self.record("s1"), ttl: 600)
        #expect(try await harness.store.take(state: "s1") == Self.record("s1"))
        #expect(try await harness.store.take(state: "s1") == nil)
        #expect(try await harness.store.take(state: "unknown") == nil)
    }

    @Test(arguments: StoreBackend.available)
    func expiresRecordsByTheInjectedClock(_ backend: StoreBackend) async throws {
        let harness = try Harness(backend)
        try await harness.store.put(Self.record("s1"), ttl: 600)
        try await harness.store.put(Self.record("s2"), ttl: 600)
        harness.clock.advance(by: 599)
        #expect(try await harness.store.take(state: "s1") != nil)
        harness.clock.advance(by: 1)
        #expect(try await harness.store.take(state: "s2") == nil)
        // An expired state may be stored again.
        try await harness.store.put(Self.record("s2"), ttl: 60)
        #expect(try await harness.store.take(state: "s2") != nil)
    }

    @Test(arguments: StoreBackend.available)
    func refusesALiveDuplicateStateAndABadTTL(_ backend: StoreBackend) async throws {
        let harness = try Harness(backend)
        try await harness.store.put(Self.record("s1"), ttl: 600)
        await #expect(throws: FlowStoreError(.duplicateState, "expected a new state, found one that is already stored"))
        {
            try await harness.store.put(Self.record("s1", provider: "google"), ttl: 600)
        }
        #expect(try await harness.store.take(state: "s1")?.provider == "apple")
        for ttl in [0, -1, Double.nan, Double.infinity] {
            do {
                try await harness.store.put(Self.record("bad"), ttl: ttl)
                Issue.record("accepted TTL \(ttl)")
            } catch {
                #expect(error.code == .invalidTTL)
            }
        }
    }

    @Test(arguments: StoreBackend.available)
    func givesARecordToOneOfManyConcurrentTakers(_ backend: StoreBackend) async throws {
        let harness = try Harness(backend)
        try await harness.store.put(Self.record("race"), ttl: 600)
        let store = harness.store
        let winners = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<32 { group.addTask { try await store.take(state: "race") != nil } }
            var count = 0
            for try await won in group where won { count += 1 }
            return count
        }
        #expect(winners == 1)
    }

    @Test func givesARecordToOneTakerAcrossTwoConnections() async throws {
        let directory = try TemporaryDirectory()
        let clock = ManualClock(StoreHarness.start)
        let path = directory.path("shared-flows.sqlite")
        let first = SQLiteFlowStore(database: try SQLiteDatabase(path: path), clock: clock)
        let second = SQLiteFlowStore(database: try SQLiteDatabase(path: path), clock: clock)
        for round in 0..<10 {
            let state = "state-\(round)"
            try await (round.isMultiple(of: 2) ? first : second).put(Self.record(state), ttl: 600)
            let winners = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<16 {
                    let store = index.isMultiple(of: 2) ? first : second
                    group.addTask { try await store.take(state: state) != nil }
                }
                var count = 0
                for try await won in group where won { count += 1 }
                return count
            }
            #expect(winners == 1, "round \(round)")
        }
    }

    @Test func reportsADamagedRecordAsInvalid() async throws {
        let directory = try TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.path("bad-flow.sqlite"))
        let store = SQLiteFlowStore(database: database, clock: ManualClock(StoreHarness.start))
        try await store.put(Self.record("s1"), ttl: 600)
        try await database.perform("test") { connection throws(StoreError) in
            try connection.run("UPDATE flow_states SET record = x'7b2276223a327d'", operation: "test")
        }
        do {
            _ = try await store.take(state: "s1")
            Issue.record("took a damaged record")
        } catch {
            #expect(error.code == .invalidRecord)
        }
        // The damaged record was consumed with the take: a replayed state still finds nothing.
        #expect(try await store.take(state: "s1") == nil)
    }

    @Test func purgesExpiredFlowsWhenStoringOne() async throws {
        let directory = try TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.path("purge-flows.sqlite"))
        let clock = ManualClock(StoreHarness.start)
        let store = SQLiteFlowStore(database: database, clock: clock)
        for index in 0..<5 { try await store.put(Self.record("old-\(index)"), ttl: 60) }
        clock.advance(by: 60)
        try await store.put(Self.record("new"), ttl: 60)
        let count = try await database.perform("test") { connection throws(StoreError) in
            try connection.query("SELECT count(*) FROM flow_states", operation: "test").first?.integer(0)
        }
        #expect(count == 1)
    }
}
