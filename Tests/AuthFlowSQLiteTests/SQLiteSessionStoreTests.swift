import AuthFlowJOSE
import AuthFlowSQL
import AuthFlowStoreTestSupport
import AuthFlowStores
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

    @Test func readsARowWrittenBeforeGroupsLastUseAndAgents() async throws {
        let directory = try TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.path("old-rows.sqlite"))
        let clock = ManualClock(StoreHarness.start)
        let store = SQLiteSessionStore(database: database, clock: clock)
        // As schema 7 wrote it: the columns of schema 8 are NULL in a migrated row.
        _ = try await database.perform("test") { connection throws(StoreError) in
            try connection.run(
                """
                INSERT INTO sessions (id_digest, user_id, provider, subject, created_at, expires_at, kind)
                VALUES (?, 'u-alice', 'google', 'g-1', ?, ?, 'cookie')
                """,
                [
                    .blob(Digest.sha256(Array("old".utf8))), .real(StoreHarness.start.timeIntervalSince1970),
                    .real(StoreHarness.start.timeIntervalSince1970 + 60),
                ], operation: "test")
        }
        let record = try #require(try await store.session(id: "old"))
        #expect(record.groups == [] && record.agent == nil && record.lastUsedAt == StoreHarness.start)
        try await store.touchSession(id: "old", lastUsedAt: StoreHarness.start + 10)
        #expect(try await store.session(id: "old")?.lastUsedAt == StoreHarness.start + 10)
        #expect(try await store.sessions(userID: UserID(rawValue: "u-alice")).count == 1)
        // A value no store writes is corrupt data, not an empty list.
        _ = try await database.perform("test") { connection throws(StoreError) in
            try connection.run("UPDATE sessions SET group_names = '[1]'", operation: "test")
        }
        let corrupt = await storeError { () throws(StoreError) in _ = try await store.session(id: "old") }
        #expect(corrupt?.code == .corruptData)
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

    static func logSyncs(_ database: SQLiteDatabase) async throws -> Int {
        try await database.perform("test") { connection throws(StoreError) in connection.logSyncs }
    }

    /// A new session is committed without a sync of its own; its deletion, like every other write, is synced
    /// before the call returns, and a read syncs nothing.
    @Test func createsASessionUnsyncedAndSyncsEveryOtherWrite() async throws {
        let directory = try TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.path("sync.sqlite"))
        let store = SQLiteSessionStore(database: database, clock: ManualClock(StoreHarness.start))
        let start = try await Self.logSyncs(database)
        try await store.createSession(
            id: "session-sync",
            record: SessionRecord(
                userID: .alice, provider: "apple", subject: "s", createdAt: StoreHarness.start,
                expiresAt: StoreHarness.start + 60))
        #expect(try await Self.logSyncs(database) == start)
        #expect(try await store.session(id: "session-sync")?.userID == .alice)
        #expect(try await Self.logSyncs(database) == start)
        #expect(try await store.deleteSession(id: "session-sync"))
        #expect(try await Self.logSyncs(database) == start + 1)
        // Deleting nothing changes no row: no sync.
        #expect(try await store.deleteSession(id: "session-sync") == false)
        #expect(try await Self.logSyncs(database) == start + 1)
    }

    /// An operation that committed a statement and then failed still syncs what it committed.
    @Test func syncsWhatAFailedOperationCommittedBeforeFailing() async throws {
        let directory = try TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.path("failed.sqlite"))
        let start = try await Self.logSyncs(database)
        await #expect(throws: StoreError.self) {
            try await database.perform("test") { connection throws(StoreError) in
                try connection.run(
                    "INSERT INTO applied_notifications (id, applied_at) VALUES ('n-1', 0)", operation: "test")
                try connection.run("INSERT INTO no_such_table VALUES (1)", operation: "test")
            }
        }
        #expect(try await Self.logSyncs(database) == start + 1)
        let count = try await database.perform("test") { connection throws(StoreError) in
            try connection.query("SELECT count(*) FROM applied_notifications", operation: "test").first?.integer(0)
        }
        #expect(count == 1)
    }

    /// The connection keeps its `synchronous` setting, so the statements it keeps are compiled once: switching
    /// the setting would expire them all, and SQLite would compile each again after every switch (8 times per
    /// sign-in when the connection switched for the spent state and the session).
    @Test func keepsItsStatementsCompiledAcrossSignInWrites() async throws {
        let directory = try TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.path("compiled.sqlite"))
        let clock = ManualClock(StoreHarness.start)
        let cipher = try TokenCipher(secret: StoreHarness.secret, random: SystemRandom())
        let accounts = SQLiteAccountStore(database: database, cipher: cipher, clock: clock)
        let sessions = SQLiteSessionStore(database: database, clock: clock)
        let flows = SQLiteFlowStore(database: database, clock: clock)
        let tokens = StoredTokens(accessToken: "ya29.access", refreshToken: "1//refresh", scope: "openid")
        @Sendable func recompilations() async throws -> [Int] {
            [try await database.perform("test") { connection throws(StoreError) in connection.recompilations }]
        }
        @Sendable func signIn(_ round: Int) async throws {
            // A first sign-in's writes, in its order: spent state, account with tokens, session; only the account
            // write syncs the log (which carries the spent state with it).
            let syncs = try await Self.logSyncs(database)
            #expect(try await flows.markSpent(state: "state-\(round)", until: clock.now() + 600))
            let identity = IdentityKey(provider: "google", subject: "subject-\(round)")
            let user = UserID(rawValue: "user-\(round)")
            _ = try await accounts.createUser(user, identity: identity, profile: IdentityProfile(), tokens: tokens)
            try await sessions.createSession(
                id: "session-\(round)",
                record: SessionRecord(
                    userID: user, provider: "google", subject: identity.subject, createdAt: clock.now(),
                    expiresAt: clock.now() + 60))
            #expect(try await sessions.session(id: "session-\(round)")?.userID == user)
            #expect(try await Self.logSyncs(database) == syncs + 1)
        }
        // The first round prepares every statement (one prepared while the schema was migrated is compiled
        // again once); the next rounds must compile none.
        try await signIn(0)
        let before = try await recompilations()
        for round in 1...3 { try await signIn(round) }
        #expect(try await recompilations() == before)
    }
}
