import AuthFlowJOSE
import AuthFlowRedis
import AuthFlowStoreTestSupport
import AuthFlowStores
import Foundation
import Testing

@testable import AuthFlowPostgres
@testable import AuthFlowSQLite

/// `FlowStore` behaviour, run against the core's in-memory store, SQLite, PostgreSQL and Redis alike, plus what
/// only SQLite can show (single use across connections). Expiry on the injected clock is checked where the
/// backend computes it from that clock (Redis expires keys on its own clock).
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
                store = RedisFlowStore(client: try TestDatabases.freshRedisClient(), clock: clock)
                directory = nil
            }
        }
    }

    static let until = StoreHarness.start.addingTimeInterval(600)

    @Test(arguments: StoreBackend.availableForSessions)
    func spendsAStateExactlyOnce(_ backend: StoreBackend) async throws {
        let harness = try Harness(backend)
        #expect(try await harness.store.markSpent(state: "s1", until: Self.until))
        #expect(try await harness.store.markSpent(state: "s1", until: Self.until) == false)
        #expect(try await harness.store.markSpent(state: "s2", until: Self.until))
        try await harness.store.checkHealth()
    }

    @Test(arguments: StoreBackend.available)
    func forgetsSpentStatesAfterTheirExpiryAndTheSkewMargin(_ backend: StoreBackend) async throws {
        let harness = try Harness(backend)
        #expect(try await harness.store.markSpent(state: "s1", until: Self.until))
        harness.clock.advance(by: 599)
        #expect(try await harness.store.markSpent(state: "s1", until: Self.until) == false)
        // Past the flow's expiry but within the margin: another instance whose clock is behind still accepts
        // the flow, so the state stays spent.
        harness.clock.advance(by: 1 + FlowStoreKey.clockSkewMargin - 1)
        #expect(try await harness.store.markSpent(state: "s1", until: Self.until.addingTimeInterval(600)) == false)
        harness.clock.advance(by: 1)
        #expect(try await harness.store.markSpent(state: "s1", until: Self.until.addingTimeInterval(900)))
    }

    @Test(arguments: StoreBackend.availableForSessions)
    func spendsAStateForOneOfManyConcurrentCallers(_ backend: StoreBackend) async throws {
        let harness = try Harness(backend)
        let store = harness.store
        let winners = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<32 { group.addTask { try await store.markSpent(state: "race", until: Self.until) } }
            var count = 0
            for try await won in group where won { count += 1 }
            return count
        }
        #expect(winners == 1)
    }

    @Test func spendsAStateOnceAcrossTwoConnections() async throws {
        let directory = try TemporaryDirectory()
        let clock = ManualClock(StoreHarness.start)
        let path = directory.path("shared-flows.sqlite")
        let first = SQLiteFlowStore(database: try SQLiteDatabase(path: path), clock: clock)
        let second = SQLiteFlowStore(database: try SQLiteDatabase(path: path), clock: clock)
        for round in 0..<10 {
            let state = "state-\(round)"
            let winners = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<16 {
                    let store = index.isMultiple(of: 2) ? first : second
                    group.addTask { try await store.markSpent(state: state, until: Self.until) }
                }
                var count = 0
                for try await won in group where won { count += 1 }
                return count
            }
            #expect(winners == 1, "round \(round)")
        }
    }

    /// The mark commits without a sync of its own (the sign-in's account write syncs it), yet every other
    /// connection sees it at once, and everything else still commits synced.
    @Test func marksSpentUnsyncedVisiblyAndLeavesCommitsSynced() async throws {
        let directory = try TemporaryDirectory()
        let clock = ManualClock(StoreHarness.start)
        let path = directory.path("unsynced-flows.sqlite")
        let database = try SQLiteDatabase(path: path)
        let store = SQLiteFlowStore(database: database, clock: clock)
        let syncs = try await database.perform("test") { connection throws(StoreError) in connection.logSyncs }
        #expect(try await store.markSpent(state: "state-unsynced", until: Self.until))
        #expect(try await database.perform("test") { connection throws(StoreError) in connection.logSyncs } == syncs)
        let other = SQLiteFlowStore(database: try SQLiteDatabase(path: path), clock: clock)
        #expect(try await other.markSpent(state: "state-unsynced", until: Self.until) == false)
    }

    @Test func storesDigestsOnlyAndPurgesExpiredOnes() async throws {
        let directory = try TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.path("purge-flows.sqlite"))
        let clock = ManualClock(StoreHarness.start)
        let store = SQLiteFlowStore(database: database, clock: clock)
        for index in 0..<5 {
            _ = try await store.markSpent(state: "old-\(index)", until: StoreHarness.start.addingTimeInterval(60))
        }
        clock.advance(by: 60 + FlowStoreKey.clockSkewMargin)
        _ = try await store.markSpent(state: "new-state", until: clock.now().addingTimeInterval(60))
        let rows = try await database.perform("test") { connection throws(StoreError) in
            try connection.query("SELECT state_digest FROM spent_states", operation: "test").map {
                row throws(StoreError) in try row.text(0)
            }
        }
        #expect(rows == [FlowStoreKey.digest(of: "new-state")])
    }

    @Test func reportsAnUnreadableDatabaseAsABackendFailure() async throws {
        let directory = try TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.path("gone.sqlite"))
        let store = SQLiteFlowStore(database: database, clock: ManualClock(StoreHarness.start))
        try await database.perform("test") { connection throws(StoreError) in
            try connection.execute("DROP TABLE spent_states", operation: "test")
        }
        do {
            _ = try await store.markSpent(state: "s", until: Self.until)
            Issue.record("expected a backend failure")
        } catch {
            #expect(error.code == .backendFailure)
        }
        await #expect(throws: FlowStoreError.self) { try await store.checkHealth() }
    }
}
