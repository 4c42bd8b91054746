import AuthFlowJOSE
import AuthFlowSQL
import AuthFlowStoreTestSupport
import AuthFlowStores
import Foundation
import Testing

@testable import AuthFlowSQLite

/// Schema version 6: every table rebuilt WITHOUT ROWID, keeping every row, column, constraint and index; foreign
/// keys off only while the tables are rebuilt, checked before committing.
extension SQLiteDatabaseTests {
    /// Every table with the columns of its primary key, parents before children.
    static let tables: [(name: String, key: String)] = [
        ("users", "id"), ("identities", "provider, subject"), ("identity_tokens", "provider, subject"),
        ("pending_profiles", "key"), ("applied_notifications", "id"), ("sessions", "id_digest"),
        ("spent_states", "state_digest"),
    ]
    /// Tables later migrations create (already without rowid), which a version-5 file does not have.
    static let tablesAddedAfterVersion6 = ["passkeys"]

    /// What a migration must keep of a file: every row of every table in key order, the tables' columns and
    /// foreign keys, and the indexes (name, table, definition with runs of white space as one space).
    struct Contents: Equatable {
        var rows: [String: [[SQLiteValue]]] = [:]
        var columns: [String: [[SQLiteValue]]] = [:]
        var foreignKeys: [String: [[SQLiteValue]]] = [:]
        var indexes: [[String]] = []

        /// These contents without the last `counts[table]` columns of each table's rows and column list.
        func dropping(_ counts: [String: Int]) -> Contents {
            var copy = self
            for (table, count) in counts {
                copy.rows[table] = rows[table]?.map { Array($0.dropLast(count)) }
                copy.columns[table] = columns[table].map { Array($0.dropLast(count)) }
            }
            return copy
        }

        init(_ connection: SQLiteConnection) throws(StoreError) {
            for table in SQLiteDatabaseTests.tables {
                rows[table.name] = try connection.query(
                    "SELECT * FROM \(table.name) ORDER BY \(table.key)", operation: "test"
                ).map(\.values)
                columns[table.name] = try connection.query("PRAGMA table_xinfo(\(table.name))", operation: "test")
                    .map(\.values)
                foreignKeys[table.name] = try connection.query(
                    "PRAGMA foreign_key_list(\(table.name))", operation: "test"
                ).map(\.values)
            }
            indexes = try connection.query(
                "SELECT name, tbl_name, sql FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL ORDER BY name",
                operation: "test"
            ).map { row throws(StoreError) in
                [
                    try row.text(0), try row.text(1),
                    try row.text(2).split(whereSeparator: \.isWhitespace).joined(separator: " "),
                ]
            }
        }
    }

    /// How many columns migrations after version 6 appended to each table (session kinds, token clients); left
    /// out when the migrated file is compared with the version 5 one.
    static let columnsAppendedAfterVersion6 = ["sessions": 4, "identity_tokens": 1]

    /// The `sql` of every table in `sqlite_schema`, by name.
    static func tableDefinitions(_ connection: SQLiteConnection) throws(StoreError) -> [String: String] {
        var definitions: [String: String] = [:]
        for row in try connection.query("SELECT name, sql FROM sqlite_schema WHERE type = 'table'", operation: "test") {
            definitions[try row.text(0)] = try row.text(1)
        }
        return definitions
    }

    @Test func migratesAVersionFiveFileToTablesWithoutRowidKeepingEveryRowColumnAndIndex() async throws {
        let directory = try TemporaryDirectory()
        let sourcePath = directory.path("source.sqlite")
        let path = directory.path("v5.sqlite")
        let clock = ManualClock(StoreHarness.start)
        let cipher = try TokenCipher(secret: StoreHarness.secret, random: SystemRandom())
        let aliceTokens = StoredTokens(
            accessToken: "apple-access-alice", refreshToken: "apple-refresh-alice-0123456789",
            accessTokenExpiresAt: StoreHarness.start + 3600, scope: "name email")
        let aliceGoogleTokens = StoredTokens(
            accessToken: "ya29.alice", refreshToken: "1//0gAliceGoogleRefresh-0123456789", scope: "openid email")
        let bobTokens = StoredTokens(accessToken: "ya29.bob", refreshToken: nil)
        let aliceSession = SessionRecord(
            userID: .alice, provider: "google", subject: IdentityKey.googleAlice.subject, createdAt: StoreHarness.start,
            expiresAt: StoreHarness.start + 3600, providerSessionID: "google-sid-1")
        let bobSession = SessionRecord(
            userID: .bob, provider: "google", subject: IdentityKey.googleBob.subject, createdAt: StoreHarness.start,
            expiresAt: StoreHarness.start + 7200)
        let profiles = [
            PendingProfile(
                key: "state-apple-1", provider: "apple", firstName: "Ada", lastName: "Lovelace",
                expiresAt: StoreHarness.start + 600),
            PendingProfile(
                key: "state-apple-2", provider: "apple", firstName: nil, lastName: "Byron",
                expiresAt: StoreHarness.start + 900),
        ]

        // The rows, written through the public stores into a current file: two users, alice with three
        // identities (one disabled, one holding a refresh lease), tokens with and without a refresh token,
        // sessions with and without a provider session id, pending profiles, a notification, spent states.
        let source = try SQLiteDatabase(path: sourcePath)
        let sourceAccounts = SQLiteAccountStore(database: source, cipher: cipher, clock: clock)
        let sourceSessions = SQLiteSessionStore(database: source, clock: clock)
        let sourceFlows = SQLiteFlowStore(database: source, clock: clock)
        _ = try await sourceAccounts.createUser(
            .alice, identity: .appleAlice,
            profile: IdentityProfile(
                email: "Alice.Private@privaterelay.appleid.com", emailVerified: true, isPrivateEmail: true,
                name: "Alice"),
            tokens: aliceTokens)
        _ = try await sourceAccounts.linkIdentity(
            .googleAlice, profile: IdentityProfile(email: "alice@example.com", emailVerified: true), to: .alice,
            tokens: aliceGoogleTokens)
        _ = try await sourceAccounts.linkIdentity(
            .googleAliceWork, profile: IdentityProfile(email: "alice@work.example"), to: .alice)
        _ = try await sourceAccounts.setIdentityDisabled(true, for: .googleAliceWork)
        _ = try await sourceAccounts.createUser(
            .bob, identity: .googleBob, profile: IdentityProfile(email: "bob@example.com", emailVerified: true),
            tokens: bobTokens)
        #expect(
            try await sourceAccounts.beginTokenRefresh(for: .googleAlice, holder: "instance-a", leaseDuration: 30)
                == .acquired(aliceGoogleTokens))
        for profile in profiles { try await sourceAccounts.putPendingProfile(profile) }
        #expect(try await sourceAccounts.applyNotification(id: "apple-jti-1", changes: []))
        try await sourceSessions.createSession(id: "cookie-alice", record: aliceSession)
        try await sourceSessions.createSession(id: "cookie-bob", record: bobSession)
        #expect(try await sourceFlows.markSpent(state: "state-1", until: StoreHarness.start + 600))
        #expect(try await sourceFlows.markSpent(state: "state-2", until: StoreHarness.start + 600))

        // A file at schema version 5 holding those rows, copied column by column in the same order (so the
        // current tables have the columns of version 5), and enough more users for B-trees of several pages.
        let before: Contents
        do {
            let connection = try SQLiteConnection(path: path, busyTimeout: 5)
            try connection.execute("PRAGMA foreign_keys = ON", operation: "test")
            for migration in SQLiteSchema.migrations[0..<5] { try connection.execute(migration, operation: "test") }
            try connection.execute("PRAGMA application_id = \(SQLiteSchema.applicationID)", operation: "test")
            try connection.execute("PRAGMA user_version = 5", operation: "test")
            try connection.run("ATTACH DATABASE ? AS source", [.text(sourcePath)], operation: "test")
            for table in Self.tables {
                // The columns of version 5 only: later migrations append columns to the source's tables.
                let columns = try connection.query(
                    "SELECT name FROM pragma_table_info('\(table.name)', 'main') ORDER BY cid", operation: "test"
                ).map { row throws(StoreError) in try row.text(0) }.joined(separator: ", ")
                try connection.execute(
                    "INSERT INTO main.\(table.name) SELECT \(columns) FROM source.\(table.name)", operation: "test")
            }
            try connection.execute("DETACH DATABASE source", operation: "test")
            try connection.execute(
                """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 400)
                INSERT INTO users (id, created_at) SELECT 'u-bulk-' || i, i FROM n;
                INSERT INTO identities (provider, subject, user_id, email, email_normalized, email_verified,
                    is_private_email, email_disabled, name, disabled, created_at, updated_at)
                SELECT 'google', 'bulk-' || substr(id, 8), id, 'Bulk@Example.com', 'bulk@example.com', 1, 0, 0,
                    'Bulk User', 0, created_at, created_at
                FROM users WHERE id LIKE 'u-bulk-%';
                """, operation: "test")
            before = try Contents(connection)
            #expect(try Self.tableDefinitions(connection).values.allSatisfy { !$0.contains("WITHOUT ROWID") })
        }
        #expect(before.rows["users"]?.count == 402)
        #expect(before.rows["identity_tokens"]?.count == 3)
        #expect(before.indexes.count == 10)

        let database = try SQLiteDatabase(path: path)
        #expect(try await database.schemaVersion() == SQLiteDatabase.currentSchemaVersion)
        try await database.perform("test") { connection throws(StoreError) in
            let after = try Contents(connection).dropping(Self.columnsAppendedAfterVersion6)
            for table in Self.tables.map(\.name) {
                #expect(after.rows[table] == before.rows[table], "rows of \(table)")
                #expect(after.columns[table] == before.columns[table], "columns of \(table)")
                #expect(after.foreignKeys[table] == before.foreignKeys[table], "foreign keys of \(table)")
            }
            #expect(after.indexes.filter { !Self.tablesAddedAfterVersion6.contains($0[1]) } == before.indexes)
            #expect(after.indexes.contains(where: { $0[0] == "sessions_by_provider_session" }))
            // One B-tree per table: no automatic primary-key index is left.
            let automatic =
                try connection.query(
                    "SELECT count(*) FROM sqlite_schema WHERE name LIKE 'sqlite_autoindex_%'", operation: "test"
                ).first?.integer(0)
            #expect(automatic == 0)
            #expect(try connection.query("PRAGMA integrity_check", operation: "test").map(\.values) == [[.text("ok")]])
            #expect(try connection.query("PRAGMA foreign_key_check", operation: "test").isEmpty)
            // The CHECK constraints came along with the columns.
            do throws(StoreError) {
                try connection.run(
                    """
                    INSERT INTO identities (provider, subject, user_id, email_verified, is_private_email,
                        email_disabled, disabled, created_at, updated_at) VALUES ('x', 'check', 'u-bob', 2, 0, 0, 0, 0, 0)
                    """, operation: "test")
                Issue.record("stored email_verified = 2 despite its CHECK constraint")
            } catch {
                #expect(error.message.contains("CHECK constraint failed"))
            }
        }

        // Read back through the public stores, the same as from the file the rows came from.
        let accounts = SQLiteAccountStore(database: database, cipher: cipher, clock: clock)
        let sessions = SQLiteSessionStore(database: database, clock: clock)
        let flows = SQLiteFlowStore(database: database, clock: clock)
        let alice = try #require(try await accounts.user(.alice))
        #expect(alice.identities.count == 3)
        #expect(alice == (try await sourceAccounts.user(.alice)))
        #expect(try await accounts.user(.bob) == (try await sourceAccounts.user(.bob)))
        #expect(try await accounts.user(UserID(rawValue: "u-bulk-400"))?.identities.first?.name == "Bulk User")
        #expect(try await accounts.users(withVerifiedEmail: "ALICE@example.com").map(\.id) == [.alice])
        #expect(try await accounts.identity(.googleAliceWork)?.isDisabled == true)
        #expect(try await accounts.tokens(for: .appleAlice) == aliceTokens)
        #expect(try await accounts.tokens(for: .googleBob) == bobTokens)
        #expect(try await accounts.tokens(for: .googleAliceWork) == nil)
        #expect(
            try await accounts.identity(
                provider: "google",
                refreshToken: .sha512SHA512(
                    RefreshTokenIdentifier.sha512SHA512Digest(of: "1//0gAliceGoogleRefresh-0123456789")))
                == .googleAlice)
        #expect(
            try await accounts.identity(provider: "apple", refreshToken: .prefix("apple-refresh-al")) == .appleAlice)
        // The lease taken before the migration is still held.
        #expect(
            try await accounts.beginTokenRefresh(for: .googleAlice, holder: "instance-b", leaseDuration: 30)
                == .held(aliceGoogleTokens))
        #expect(try await accounts.isNotificationApplied(id: "apple-jti-1"))
        #expect(try await accounts.isNotificationApplied(id: "apple-jti-2") == false)
        for profile in profiles { #expect(try await accounts.takePendingProfile(key: profile.key) == profile) }
        #expect(try await sessions.session(id: "cookie-alice") == aliceSession)
        #expect(try await sessions.session(id: "cookie-bob") == bobSession)
        #expect(try await sessions.deleteSessions(identity: .googleAlice, providerSessionID: "google-sid-1") == 1)
        #expect(try await flows.markSpent(state: "state-1", until: StoreHarness.start + 600) == false)
        #expect(try await flows.markSpent(state: "state-3", until: StoreHarness.start + 600))
    }

    @Test func migratedTablesHaveNoRowid() async throws {
        let directory = try TemporaryDirectory()
        _ = try Self.fileWithCarol(at: directory.path("v5.sqlite"), schemaVersion: 5)
        let database = try SQLiteDatabase(path: directory.path("v5.sqlite"))
        try await database.perform("test") { connection throws(StoreError) in
            let definitions = try Self.tableDefinitions(connection)
            #expect(Set(definitions.keys) == Set(Self.tables.map(\.name) + Self.tablesAddedAfterVersion6))
            for table in Self.tables.map(\.name) + Self.tablesAddedAfterVersion6 {
                #expect(definitions[table]?.hasSuffix("STRICT, WITHOUT ROWID") == true, "\(table)")
                do throws(StoreError) {
                    try connection.query("SELECT rowid FROM \(table)", operation: "test")
                    Issue.record("\(table) still has a rowid")
                } catch {
                    #expect(error.message.contains("no such column: rowid"))
                }
            }
        }
    }

    @Test func foreignKeysCascadeAfterTheMigrationAndStayOnForTheConnection() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("v5.sqlite")
        do {
            let connection = try Self.fileWithCarol(at: path, schemaVersion: 5)
            try connection.execute(
                """
                INSERT INTO users (id, created_at) VALUES ('u-dave', 0);
                INSERT INTO identities (provider, subject, user_id, email_verified, is_private_email, email_disabled,
                    disabled, created_at, updated_at) VALUES ('google', 'dave-1', 'u-dave', 0, 0, 0, 0, 0, 0);
                INSERT INTO identity_tokens (provider, subject, refresh_token_hash, updated_at)
                VALUES ('x', 'carol-42', 'hash-carol', 0), ('google', 'dave-1', 'hash-dave', 0);
                """, operation: "test")
        }
        let database = try SQLiteDatabase(path: path)
        #expect(try await Self.value(database, "PRAGMA foreign_keys") == .integer(1))
        let counts = try await database.perform("test") { connection throws(StoreError) -> [Int64] in
            try connection.run("DELETE FROM users WHERE id = 'u-carol'", operation: "test")
            return [
                try connection.query("SELECT count(*) FROM identities", operation: "test").first?.integer(0) ?? -1,
                try connection.query("SELECT count(*) FROM identity_tokens", operation: "test").first?.integer(0) ?? -1,
                try connection.query(
                    "SELECT count(*) FROM identity_tokens WHERE subject = 'carol-42'", operation: "test"
                ).first?.integer(0) ?? -1,
            ]
        }
        // Carol's identity and tokens went with her; dave's stayed.
        #expect(counts == [1, 1, 0])
        // A row naming a missing parent is refused.
        let refused = await storeError { () throws(StoreError) in
            try await database.perform("test") { connection throws(StoreError) in
                try connection.run(
                    """
                    INSERT INTO identities (provider, subject, user_id, email_verified, is_private_email,
                        email_disabled, disabled, created_at, updated_at) VALUES ('x', 'eve', 'u-eve', 0, 0, 0, 0, 0, 0)
                    """, operation: "test")
            }
        }
        #expect(refused?.message.contains("FOREIGN KEY constraint failed") == true)
    }

    @Test func refusesToMigrateAFileWithADanglingReferenceAndLeavesItAtVersionFive() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("dangling.sqlite")
        let before: Contents
        do {
            let connection = try Self.fileWithCarol(at: path, schemaVersion: 5)
            // Written with foreign keys off: an identity of a user that does not exist, tokens of an identity
            // that does not exist.
            try connection.execute("PRAGMA foreign_keys = OFF", operation: "test")
            try connection.execute(
                """
                INSERT INTO identities (provider, subject, user_id, email_verified, is_private_email, email_disabled,
                    disabled, created_at, updated_at) VALUES ('google', 'ghost-1', 'u-ghost', 0, 0, 0, 0, 0, 0);
                INSERT INTO identity_tokens (provider, subject, updated_at) VALUES ('apple', 'ghost-2', 0);
                INSERT INTO sessions (id_digest, user_id, provider, subject, created_at, expires_at)
                VALUES (x'0011', 'u-carol', 'x', 'carol-42', 0, 1e12);
                """, operation: "test")
            before = try Contents(connection)
        }

        let error = await storeError { () throws(StoreError) in try SQLiteDatabase(path: path) }
        #expect(error?.code == .corruptData)
        #expect(error?.operation == "migrate")
        #expect(error?.message.contains("1 in identities -> users") == true)
        #expect(error?.message.contains("1 in identity_tokens -> identities") == true)
        #expect(error?.message.contains("left at schema version 5") == true)
        #expect(error?.message.contains("ghost") == false)

        // Nothing changed, and the connection that tried has its foreign keys back on.
        let connection = try SQLiteConnection(path: path, busyTimeout: 5)
        try connection.execute("PRAGMA foreign_keys = ON", operation: "test")
        #expect(try Contents(connection) == before)
        #expect(try connection.query("PRAGMA user_version", operation: "test").first?.integer(0) == 5)
        #expect(try Self.tableDefinitions(connection).values.allSatisfy { !$0.contains("WITHOUT ROWID") })
        #expect(try Self.tableDefinitions(connection).keys.allSatisfy { !$0.hasPrefix("new_") })
        let again = await storeError { () throws(StoreError) in try SQLiteSchema.migrate(connection) }
        #expect(again?.code == .corruptData)
        #expect(try connection.query("PRAGMA foreign_keys", operation: "test").first?.integer(0) == 1)
        #expect(try Contents(connection) == before)
    }
}
