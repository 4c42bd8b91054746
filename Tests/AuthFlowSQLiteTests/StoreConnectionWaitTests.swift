import AuthFlow
import AuthFlowHTTP
import Foundation
import Testing

@testable import AuthFlowPostgres
@testable import AuthFlowRedis

/// Operations waiting for a pooled connection of a busy PostgreSQL or Redis hold no thread: with every handler
/// thread waiting on a stalled PostgreSQL, a Redis-only route used to wait for a thread until their deadline.
/// Each test holds a one-connection pool on a server that does not answer yet (a lock, a blocking pop), has 63
/// more operations wait behind it, and checks that the two blocking threads are all the pool ever started.
@Suite struct StoreConnectionWaitTests {
    /// Operations at once: as many as the handler threads.
    static let operations = 64

    /// Waits (without a time limit) until `count` operations wait for a connection, as `waiting` says.
    static func waitUntil(_ count: Int, waiting: () -> Int) async {
        while waiting() != count { await Task.yield() }
    }

    @Test(.enabled(if: TestDatabases.postgresURL != nil || TestDatabases.required))
    func operationsWaitingForAPostgresConnectionHoldNoThread() async throws {
        let url = try TestDatabases.freshPostgresURL()
        let threads = BlockingThreads(threadCount: 2, name: "postgres-wait-test")
        defer { threads.shutdown() }
        let database = try PostgresDatabase(
            url: url, maximumConnections: 1, operationTimeout: 120, blockingThreads: threads)
        // Another instance holds the advisory lock every operation below waits for (on its one connection).
        let locker = try PostgresDatabase(url: url, maximumConnections: 1)
        try await Self.run(locker, "SELECT pg_advisory_lock(7)")
        let waiting = (0..<Self.operations).map { _ in
            Task { try await Self.run(database, "SELECT pg_advisory_lock(7)", then: "SELECT pg_advisory_unlock(7)") }
        }
        await Self.waitUntil(Self.operations - 1) { database.waitingForConnection }
        #expect(threads.liveThreadCount == 2)
        try await Self.run(locker, "SELECT pg_advisory_unlock(7)")
        for operation in waiting { try await operation.value }
    }

    @Test(.enabled(if: TestDatabases.redisURL != nil || TestDatabases.required))
    func operationsWaitingForARedisConnectionHoldNoThread() async throws {
        let url = try #require(TestDatabases.redisURL)
        let threads = BlockingThreads(threadCount: 2, name: "redis-wait-test")
        defer { threads.shutdown() }
        let client = try RedisClient(
            endpoint: try RedisEndpoint(url: url), prefix: "authflow-test:\(UUID().uuidString):",
            maximumConnections: 1, commandTimeout: 120, blockingThreads: threads)
        // Every operation pops from a list that is empty until the end: whichever holds the one connection waits.
        let list = client.prefix + "gate"
        let waiting = (0..<Self.operations).map { _ in
            Task { try await client.command(["BLPOP", list, "0"].map { Array($0.utf8) }, operation: "test") }
        }
        await Self.waitUntil(Self.operations - 1) { client.waitingForConnection }
        #expect(threads.liveThreadCount == 2)
        let other = try TestDatabases.freshRedisClient()
        let items = (0..<Self.operations).map { "item-\($0)" }
        _ = try await other.command((["RPUSH", list] + items).map { Array($0.utf8) }, operation: "test")
        for operation in waiting { #expect(try await operation.value.array?.count == 2) }
    }

    /// Runs `sql`, then `then` when given, on one pooled connection of `database`.
    static func run(_ database: PostgresDatabase, _ sql: String, then: String? = nil) async throws {
        try await database.perform("test") { connection throws(StoreError) in
            _ = try connection.query(sql, operation: "test")
            if let then { _ = try connection.query(then, operation: "test") }
        }
    }
}
