import AuthFlow
import AuthFlowJOSE
import Foundation
import Testing

@testable import AuthFlowSQLite

/// Session ids never reach the file; expired sessions are purged; only a session's creation skips the sync.
@Suite struct SQLiteSessionStoreTests {
    @Test func storesOnlyTheDigestOfASessionID() async throws {
        let directory = try TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.path("sessions.sqlite"))
        let store = SQLiteSessionStore(database: database, clock: ManualClock(StoreHarness.start))
        let id = "session-COOKIE-VALUE-4d9e2b7a1c"
        try await store.createSession(
            id: id,
            record: SessionRecord(
                userID: .alice, provider: "apple", subject: "000544.alice.1321", createdAt: StoreHarness.start,
                expiresAt: StoreHarness.start + 60))

        let bytes = try directory.bytesOnDisk("sessions.sqlite")
        #expect(SQLiteAccountStoreTests.containsBytes(bytes, "000544.alice.1321"))
        #expect(!SQLiteAccountStoreTests.containsBytes(bytes, id))
        let digest = try await database.perform("test") { connection throws(StoreError) in
            try connection.query("SELECT id_digest FROM sessions", operation: "test").first?.blob(0)
        }
        #expect(digest == Digest.sha256(Array(id.utf8)))
    }

    @Test func purgesExpiredSessionsWhenCreatingOne() async throws {
        let directory = try TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.path("purge.sqlite"))
        let clock = ManualClock(StoreHarness.start)
        let store = SQLiteSessionStore(database: database, clock: clock)
        for index in 0..<3 {
            try await store.createSession(
                id: "old-\(index)",
                record: SessionRecord(
                    userID: .alice, provider: "apple", subject: "s", createdAt: clock.now(), expiresAt: clock.now() + 60
                ))
        }
        clock.advance(by: 61)
        try await store.createSession(
            id: "new",
            record: SessionRecord(
                userID: .bob, provider: "google", subject: "b", createdAt: clock.now(), expiresAt: clock.now() + 60))
        let count = try await database.perform("test") { connection throws(StoreError) in
            try connection.query("SELECT count(*) FROM sessions", operation: "test").first?.integer(0)
        }
        #expect(count == 1)
    }

    static func synchronous(_ database: SQLiteDatabase) async throws -> Int64? {
        try await database.perform("test") { connection throws(StoreError) in
            try connection.query("PRAGMA synchronous", operation: "test").first?.integer(0)
        }
    }

    @Test func createsASessionUnsyncedAndLeavesEveryOtherCommitSynced() async throws {
        let directory = try TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.path("sync.sqlite"))
        let store = SQLiteSessionStore(database: database, clock: ManualClock(StoreHarness.start))
        let during = try await database.withUnsyncedWriteTransaction("test") { connection throws(StoreError) in
            try connection.query("PRAGMA synchronous", operation: "test").first?.real(0)
        }
        #expect(during == 1)  // NORMAL
        #expect(try await Self.synchronous(database) == 2)  // FULL again
        try await store.createSession(
            id: "session-sync",
            record: SessionRecord(
                userID: .alice, provider: "apple", subject: "s", createdAt: StoreHarness.start,
                expiresAt: StoreHarness.start + 60))
        #expect(try await Self.synchronous(database) == 2)
        #expect(try await store.deleteSession(id: "session-sync"))
    }

    @Test func restoresSyncedCommitsBeforeAnyOperationWhenAConnectionWasLeftUnsynced() async throws {
        let directory = try TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.path("left.sqlite"))
        try await database.perform("test") { connection throws(StoreError) in
            try connection.setCommitsSynced(false, operation: "test")
        }
        #expect(try await Self.synchronous(database) == 2)
    }
}
