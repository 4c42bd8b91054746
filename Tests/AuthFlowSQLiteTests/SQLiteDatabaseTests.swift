import AuthFlowJOSE
import AuthFlowSQL
import AuthFlowStoreTestSupport
import AuthFlowStores
import Foundation
import Testing

@testable import AuthFlowSQLite

/// Opening, configuring and migrating database files; damaged, foreign and newer files.
@Suite struct SQLiteDatabaseTests {
    static func value(_ database: SQLiteDatabase, _ sql: String) async throws -> SQLiteValue? {
        try await database.perform("test") { connection throws(StoreError) in
            try connection.query(sql, operation: "test").first?.values.first
        }
    }

    @Test func migratesAnEmptyFileToTheCurrentSchema() async throws {
        let directory = try TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.path("new.sqlite"))
        #expect(try await database.schemaVersion() == SQLiteDatabase.currentSchemaVersion)
        #expect(SQLiteDatabase.currentSchemaVersion == SQLiteSchema.migrations.count)
        #expect(try await Self.value(database, "PRAGMA application_id") == .integer(SQLiteSchema.applicationID))
        #expect(try await Self.value(database, "PRAGMA journal_mode") == .text("wal"))
        // NORMAL: the write-ahead log is synced after each operation that changed rows (see `perform`).
        #expect(try await Self.value(database, "PRAGMA synchronous") == .integer(1))
        #expect(try await Self.value(database, "PRAGMA foreign_keys") == .integer(1))
        let tables = try await database.perform("test") { connection throws(StoreError) in
            try connection.query(
                "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name", operation: "test"
            ).map { row throws(StoreError) in try row.text(0) }
        }
        #expect(
            tables == [
                "applied_notifications", "identities", "identity_tokens", "passkeys", "pending_profiles", "sessions",
                "spent_states",
                "users",
            ])
    }

    /// A database file at `path` as schema version `version` wrote it, holding carol's user and X identity
    /// (`.xCarol`) without tokens; returns its open connection.
    static func fileWithCarol(at path: String, schemaVersion version: Int) throws -> SQLiteConnection {
        let connection = try SQLiteConnection(path: path, busyTimeout: 5)
        for migration in SQLiteSchema.migrations[0..<version] { try connection.execute(migration, operation: "test") }
        try connection.execute("PRAGMA application_id = \(SQLiteSchema.applicationID)", operation: "test")
        try connection.execute("PRAGMA user_version = \(version)", operation: "test")
        try connection.execute(
            """
            INSERT INTO users (id, created_at) VALUES ('u-carol', 0);
            INSERT INTO identities (provider, subject, user_id, email_verified, is_private_email, email_disabled,
                disabled, created_at, updated_at) VALUES ('x', 'carol-42', 'u-carol', 0, 0, 0, 0, 0, 0);
            """, operation: "test")
        return connection
    }

    @Test func migratesAVersionThreeFileKeepingItsTokensAndAddingTheRefreshLease() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("v3.sqlite")
        let cipher = try TokenCipher(secret: StoreHarness.secret, random: SystemRandom())
        let stored = StoredTokens(accessToken: "x-access-old", refreshToken: "x-refresh-old", scope: "users.read")
        do {
            // A file written by schema version 3: its token rows have no lease columns.
            let connection = try Self.fileWithCarol(at: path, schemaVersion: 3)
            let sealed = try TokenSealing(cipher: cipher).columns(stored, for: .xCarol, operation: "test")
            _ = try connection.run(
                """
                INSERT INTO identity_tokens (provider, subject, access_token, refresh_token, scope, updated_at)
                VALUES ('x', 'carol-42', ?, ?, ?, 0)
                """, [.optional(sealed.access), .optional(sealed.refresh), .optional(sealed.scope)], operation: "test")
        }
        let database = try SQLiteDatabase(path: path)
        #expect(try await database.schemaVersion() == SQLiteDatabase.currentSchemaVersion)
        let accounts = SQLiteAccountStore(database: database, cipher: cipher, clock: ManualClock(StoreHarness.start))
        #expect(try await accounts.tokens(for: .xCarol) == stored)
        #expect(try await accounts.beginTokenRefresh(for: .xCarol, holder: "a", leaseDuration: 30) == .acquired(stored))
        #expect(try await accounts.beginTokenRefresh(for: .xCarol, holder: "b", leaseDuration: 30) == .held(stored))
        // The verified-email lookup (shared with PostgreSQL) still finds its partial index.
        let plan = try await database.perform("test") { connection throws(StoreError) in
            try connection.query(
                """
                EXPLAIN QUERY PLAN SELECT user_id FROM identities
                WHERE email_normalized = $1 AND email_verified AND NOT disabled
                """, [.text("carol@example.net")], operation: "test"
            ).map { row throws(StoreError) in try row.text(3) }
        }
        #expect(plan.contains { $0.contains("USING INDEX identities_by_verified_email") })
    }

    @Test func migratesAVersionFourFileIndexingItsRefreshTokensOnTheirNextSave() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("v4.sqlite")
        let cipher = try TokenCipher(secret: StoreHarness.secret, random: SystemRandom())
        let stored = StoredTokens(accessToken: "x-access-old", refreshToken: "x-refresh-old-0123456789")
        let hash = RefreshTokenIdentifier.sha512SHA512(
            RefreshTokenIdentifier.sha512SHA512Digest(of: "x-refresh-old-0123456789"))
        do {
            // A file written by schema version 4: its token rows have no lookup digests.
            let connection = try Self.fileWithCarol(at: path, schemaVersion: 4)
            let sealed = try TokenSealing(cipher: cipher).columns(stored, for: .xCarol, operation: "test")
            _ = try connection.run(
                """
                INSERT INTO identity_tokens (provider, subject, access_token, refresh_token, updated_at)
                VALUES ('x', 'carol-42', ?, ?, 0)
                """, [.optional(sealed.access), .optional(sealed.refresh)], operation: "test")
        }
        let database = try SQLiteDatabase(path: path)
        #expect(try await database.schemaVersion() == SQLiteDatabase.currentSchemaVersion)
        let accounts = SQLiteAccountStore(database: database, cipher: cipher, clock: ManualClock(StoreHarness.start))
        #expect(try await accounts.tokens(for: .xCarol) == stored)
        // Not indexed until saved again with its refresh token.
        #expect(try await accounts.identity(provider: "x", refreshToken: hash) == nil)
        try await accounts.saveTokens(stored, for: .xCarol)
        #expect(try await accounts.identity(provider: "x", refreshToken: hash) == .xCarol)
        #expect(try await accounts.identity(provider: "x", refreshToken: .prefix("x-refresh-old-01")) == .xCarol)
        // The prefix is stored only as a digest keyed by the secret: not in clear, and another secret's digest
        // of it finds nothing.
        let digest = try await database.perform("test") { connection throws(StoreError) in
            try connection.query(
                "SELECT refresh_token_prefix_digest FROM identity_tokens WHERE subject = 'carol-42'", [],
                operation: "test"
            ).first?.optionalBytes(0)
        }
        let prefixBytes = Array("x-refresh-old-01".utf8)
        #expect(digest?.count == 32)
        #expect(digest.map { !$0.contains(prefixBytes[...]) } == true)
        #expect(digest == TokenSealing(cipher: cipher).prefixDigest("x-refresh-old-01"))
        let otherCipher = try TokenCipher(secret: String(repeating: "z", count: 40), random: SystemRandom())
        #expect(digest != TokenSealing(cipher: otherCipher).prefixDigest("x-refresh-old-01"))
        let otherSecret = SQLiteAccountStore(
            database: database, cipher: otherCipher, clock: ManualClock(StoreHarness.start))
        #expect(try await otherSecret.identity(provider: "x", refreshToken: .prefix("x-refresh-old-01")) == nil)
    }

    @Test func migratesAVersionOneFileKeepingItsSessions() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("v1.sqlite")
        do {
            // A file written by schema version 1: its sessions have no provider session id column.
            let connection = try SQLiteConnection(path: path, busyTimeout: 5)
            try connection.execute(SQLiteSchema.migrations[0], operation: "test")
            try connection.execute("PRAGMA application_id = \(SQLiteSchema.applicationID)", operation: "test")
            try connection.execute("PRAGMA user_version = 1", operation: "test")
            _ = try connection.run(
                """
                INSERT INTO sessions (id_digest, user_id, provider, subject, created_at, expires_at)
                VALUES (?, 'user-1', 'google', 'alice-1', 0, 1e12)
                """, [.blob(SQLiteSessionStore.digest("old-cookie"))], operation: "test")
        }
        let database = try SQLiteDatabase(path: path)
        #expect(try await database.schemaVersion() == SQLiteDatabase.currentSchemaVersion)
        let sessions = SQLiteSessionStore(database: database, clock: ManualClock(StoreHarness.start))
        let kept = try await sessions.session(id: "old-cookie")
        #expect(kept?.userID == UserID(rawValue: "user-1"))
        #expect(kept?.providerSessionID == nil)
    }

    @Test func keepsDataAndThePendingProfileAcrossReopening() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("reopen.sqlite")
        let clock = ManualClock(StoreHarness.start)
        let cipher = try TokenCipher(secret: StoreHarness.secret, random: SystemRandom())
        let profile = PendingProfile(
            key: "state-apple", provider: "apple", firstName: "Ada", lastName: "Lovelace",
            expiresAt: StoreHarness.start + 3600)
        do {
            let store = SQLiteAccountStore(database: try SQLiteDatabase(path: path), cipher: cipher, clock: clock)
            try await store.putPendingProfile(profile)
            _ = try await store.createUser(.alice, identity: .appleAlice, profile: IdentityProfile(name: "Ada"))
            try await store.saveTokens(StoredTokens(accessToken: "a", refreshToken: "r"), for: .appleAlice)
        }
        let reopened = SQLiteAccountStore(database: try SQLiteDatabase(path: path), cipher: cipher, clock: clock)
        #expect(try await reopened.database.schemaVersion() == SQLiteDatabase.currentSchemaVersion)
        #expect(try await reopened.takePendingProfile(key: "state-apple") == profile)
        #expect(try await reopened.user(.alice)?.identities.first?.name == "Ada")
        #expect(try await reopened.tokens(for: .appleAlice)?.refreshToken == "r")
    }

    @Test func refusesANewerSchemaAndLeavesTheFileUntouched() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("future.sqlite")
        do {
            let database = try SQLiteDatabase(path: path)
            try await database.perform("test") { connection throws(StoreError) in
                try connection.execute(
                    "PRAGMA user_version = \(SQLiteDatabase.currentSchemaVersion + 1)", operation: "test")
            }
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))

        let error = await storeError { () throws(StoreError) in try SQLiteDatabase(path: path) }
        #expect(error?.code == .unsupportedSchema)
        #expect(error?.message.contains("found \(SQLiteDatabase.currentSchemaVersion + 1)") == true)
        #expect(error?.message.contains("newer AuthFlow") == true)
        #expect(error?.operation == "open")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test func refusesADatabaseThatIsNotAnAuthFlowDatabase() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("foreign.sqlite")
        do {
            let connection = try SQLiteConnection(path: path, busyTimeout: 1)
            try connection.execute(
                "CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('keep me')", operation: "test")
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let error = await storeError { () throws(StoreError) in try SQLiteDatabase(path: path) }
        #expect(error?.code == .unsupportedSchema)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)

        // Another application's database with a schema version of its own.
        do {
            let connection = try SQLiteConnection(path: path, busyTimeout: 1)
            try connection.execute("PRAGMA user_version = 1", operation: "test")
        }
        let other = await storeError { () throws(StoreError) in try SQLiteDatabase(path: path) }
        #expect(other?.code == .unsupportedSchema)
        #expect(other?.message.contains("application_id") == true)
    }

    @Test func reportsAFileThatIsNotADatabase() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("garbage.sqlite")
        var bytes = [UInt8](repeating: 0, count: 8192)
        for index in bytes.indices { bytes[index] = UInt8(truncatingIfNeeded: index &* 131 &+ 7) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let error = await storeError { () throws(StoreError) in try SQLiteDatabase(path: path) }
        #expect(error?.code == .corruptDatabase)
        #expect(error?.message.contains("file is not a database") == true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(bytes))
    }

    @Test func reportsADamagedDatabaseAsATypedError() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("damaged.sqlite")
        do {
            let store = SQLiteAccountStore(
                database: try SQLiteDatabase(path: path),
                cipher: try TokenCipher(secret: StoreHarness.secret, random: SystemRandom()),
                clock: ManualClock(StoreHarness.start))
            _ = try await store.createUser(.alice, identity: .appleAlice, profile: IdentityProfile())
        }
        // Overwrite the schema page after the 100-byte file header.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seek(toOffset: 100)
        try handle.write(contentsOf: Data(repeating: 0xA5, count: 3000))
        try handle.close()

        let error = await storeError { () throws(StoreError) in try SQLiteDatabase(path: path) }
        #expect(error?.code == .corruptDatabase)
    }

    @Test func reportsDamagedRowsAsATypedErrorWhenReadingThem() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("damaged-rows.sqlite")
        let long = String(repeating: "n", count: 400)
        do {
            let store = SQLiteAccountStore(
                database: try SQLiteDatabase(path: path),
                cipher: try TokenCipher(secret: StoreHarness.secret, random: SystemRandom()),
                clock: ManualClock(StoreHarness.start))
            for index in 0..<200 {
                _ = try await store.createUser(
                    UserID(rawValue: "user-\(index)"), identity: IdentityKey(provider: "google", subject: "s\(index)"),
                    profile: IdentityProfile(email: "same@example.com", emailVerified: true, name: long))
            }
        }
        // Keep the header and schema page, damage every later page but the first few.
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        #expect(size > 16 * 4096)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        for page in stride(from: 8 * 4096, to: size, by: 4096) {
            try handle.seek(toOffset: UInt64(page))
            try handle.write(contentsOf: Data(repeating: 0x5A, count: 4096))
        }
        try handle.close()

        do {
            let store = SQLiteAccountStore(
                database: try SQLiteDatabase(path: path),
                cipher: try TokenCipher(secret: StoreHarness.secret, random: SystemRandom()),
                clock: ManualClock(StoreHarness.start))
            _ = try await store.users(withVerifiedEmail: "same@example.com")
            Issue.record("read a damaged database without an error")
        } catch let error as StoreError {
            #expect(error.code == .corruptDatabase)
        }
    }

    @Test func reportsAnUnopenablePath() async throws {
        let directory = try TemporaryDirectory()
        let error = await storeError { () throws(StoreError) in
            try SQLiteDatabase(path: directory.path("missing-directory/authflow.sqlite"))
        }
        #expect(error?.code == .backendFailure)
        #expect(error?.message.contains("cannot open") == true)
    }

    @Test func migratesOnceWhenTwoConnectionsOpenANewFileTogether() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("together.sqlite")
        let versions = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<4 {
                group.addTask { try await SQLiteDatabase(path: path, busyTimeout: 10).schemaVersion() }
            }
            var versions: [Int] = []
            for try await version in group { versions.append(version) }
            return versions
        }
        #expect(versions == Array(repeating: SQLiteDatabase.currentSchemaVersion, count: 4))
    }

    @Test func reportsBusyWhenAnotherConnectionHoldsTheWriteLock() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("busy.sqlite")
        let clock = ManualClock(StoreHarness.start)
        let cipher = try TokenCipher(secret: StoreHarness.secret, random: SystemRandom())
        let store = SQLiteAccountStore(
            database: try SQLiteDatabase(path: path, busyTimeout: 0.2), cipher: cipher, clock: clock)
        let holder = try SQLiteDatabase(path: path)
        try await holder.perform("test") { connection throws(StoreError) in
            try connection.execute("BEGIN IMMEDIATE", operation: "test")
        }
        let profile = PendingProfile(
            key: "k", provider: "apple", firstName: "A", lastName: nil, expiresAt: StoreHarness.start + 60)
        let busy = await storeError { () throws(StoreError) in try await store.putPendingProfile(profile) }
        #expect(busy?.code == .busy)
        #expect(busy?.operation == "putPendingProfile")
        // Readers are not blocked by the writer (WAL).
        #expect(try await store.identity(.appleAlice) == nil)

        try await holder.perform("test") { connection throws(StoreError) in
            try connection.execute("COMMIT", operation: "test")
        }
        try await store.putPendingProfile(profile)
        #expect(try await store.takePendingProfile(key: "k") == profile)
    }
}
