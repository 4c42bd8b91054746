import AuthFlowJOSE
import AuthFlowSQL
import AuthFlowStoreTestSupport
import AuthFlowStores
import Foundation
import Testing

@testable import AuthFlowPostgres

/// What only a shared PostgreSQL database can show: several instances (each with its own pool) racing on one
/// database, encryption at rest, migrations, connection loss and recovery, spent states and rate limits.
@Suite(.enabled(if: TestDatabases.postgresURL != nil || TestDatabases.required))
struct PostgresStoreTests {
    static let cipher = { () -> TokenCipher in
        do { return try TokenCipher(secret: StoreHarness.secret, random: SystemRandom()) } catch {
            fatalError("\(error)")
        }
    }()

    /// Two databases on one fresh database: two "instances".
    static func twoInstances() throws -> (PostgresDatabase, PostgresDatabase, String) {
        let url = try TestDatabases.freshPostgresURL()
        return (try PostgresDatabase(url: url), try PostgresDatabase(url: url), url)
    }

    static func count(_ database: PostgresDatabase, _ sql: String) async throws -> Int64 {
        try await database.perform("test") { connection throws(StoreError) in
            try connection.query(sql, operation: "test").first?.integer(0) ?? -1
        }
    }

    @Test func concurrentFirstSignInsOfOneIdentityOnTwoInstancesCreateOneUser() async throws {
        let (first, second, _) = try Self.twoInstances()
        let clock = ManualClock(StoreHarness.start)
        let stores = [first, second].map { PostgresAccountStore(database: $0, cipher: Self.cipher, clock: clock) }
        let outcomes = await withTaskGroup(of: StoreError.Code?.self) { group in
            for index in 0..<12 {
                let store = stores[index % 2]
                group.addTask {
                    do throws(StoreError) {
                        _ = try await store.createUser(
                            UserID(rawValue: "u-\(index)"), identity: .appleAlice, profile: IdentityProfile())
                        return nil
                    } catch {
                        return error.code
                    }
                }
            }
            var codes: [StoreError.Code?] = []
            for await code in group { codes.append(code) }
            return codes
        }
        #expect(outcomes.filter { $0 == nil }.count == 1)
        #expect(outcomes.compactMap { $0 }.allSatisfy { $0 == .identityAlreadyLinked })
        #expect(try await Self.count(first, "SELECT count(*) FROM users") == 1)
        let owner = try #require(try await stores[1].identity(.appleAlice)).userID
        #expect(try await stores[0].user(owner)?.identities.map(\.key) == [.appleAlice])
    }

    @Test func appliesOneNotificationOnceAcrossInstances() async throws {
        let (first, second, _) = try Self.twoInstances()
        let clock = ManualClock(StoreHarness.start)
        let stores = [first, second].map { PostgresAccountStore(database: $0, cipher: Self.cipher, clock: clock) }
        _ = try await stores[0].createUser(.alice, identity: .appleAlice, profile: IdentityProfile())
        let applied = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<10 {
                let store = stores[index % 2]
                group.addTask {
                    try await store.applyNotification(id: "jti-1", changes: [.setDisabled(.appleAlice, true)])
                }
            }
            var count = 0
            for try await was in group where was { count += 1 }
            return count
        }
        #expect(applied == 1)
        #expect(try await stores[1].identity(.appleAlice)?.isDisabled == true)
    }

    @Test func keepsTokensEncryptedAndSessionIDsOnlyAsDigests() async throws {
        let (database, _, _) = try Self.twoInstances()
        let clock = ManualClock(StoreHarness.start)
        let accounts = PostgresAccountStore(database: database, cipher: Self.cipher, clock: clock)
        let sessions = PostgresSessionStore(database: database, clock: clock)
        _ = try await accounts.createUser(.alice, identity: .appleAlice, profile: IdentityProfile())
        try await accounts.saveTokens(
            StoredTokens(accessToken: "plain-access-secret", refreshToken: "plain-refresh-secret"), for: .appleAlice)
        try await sessions.createSession(
            id: "session-cookie-secret",
            record: SessionRecord(
                userID: .alice, provider: "apple", subject: "000544.alice.1321", createdAt: StoreHarness.start,
                expiresAt: StoreHarness.start + 60))
        let dump = try await database.perform("test") { connection throws(StoreError) in
            let tokens = try connection.query(
                "SELECT encode(access_token, 'escape') || encode(refresh_token, 'escape') FROM identity_tokens",
                operation: "test")
            let ids = try connection.query("SELECT encode(id_digest, 'hex') FROM sessions", operation: "test")
            return try tokens.map { row throws(StoreError) in try row.text(0) }
                + ids.map { row throws(StoreError) in try row.text(0) }
        }
        #expect(dump.count == 2)
        #expect(!dump.joined().contains("plain-"))
        #expect(!dump.joined().contains("session-cookie-secret"))
        #expect(dump[1] == Hex.encode(Digest.sha256(Array("session-cookie-secret".utf8))))
        // The wrong secret cannot read them back: a typed error, not garbage.
        let other = PostgresAccountStore(
            database: database,
            cipher: try TokenCipher(
                secret: "another-secret-0123456789-abcdefghijklmnopq",
                random: SystemRandom()), clock: clock)
        let refused = await storeError { () throws(StoreError) in try await other.tokens(for: .appleAlice) }
        #expect(refused?.code == .corruptData)
    }

    @Test func migratesOnceWhenInstancesStartTogetherAndRefusesANewerSchema() async throws {
        let url = try TestDatabases.freshPostgresURL()
        let versions = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<4 { group.addTask { try await PostgresDatabase(url: url).schemaVersion() } }
            var versions: [Int] = []
            for try await version in group { versions.append(version) }
            return versions
        }
        #expect(versions == Array(repeating: PostgresDatabase.currentSchemaVersion, count: 4))
        let database = try PostgresDatabase(url: url)
        try await database.perform("test") { connection throws(StoreError) in
            try connection.run("UPDATE authflow_schema SET version = version + 1", operation: "test")
        }
        let error = #expect(throws: StoreError.self) { try PostgresDatabase(url: url) }
        #expect(error?.code == .unsupportedSchema)
    }

    /// The PostgreSQL database at `url` as schema version `version` wrote it, holding carol's user and X identity
    /// (`.xCarol`) without tokens; returns its open connection.
    static func databaseWithCarol(at url: String, schemaVersion version: Int) throws -> PostgresConnection {
        let connection = try PostgresConnection(conninfo: url, timeout: 30)
        try connection.run(
            "CREATE TABLE authflow_schema (singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton), "
                + "version integer NOT NULL)", operation: "test")
        for statement in PostgresSchema.migrations[0..<version].joined() {
            try connection.run(statement, operation: "test")
        }
        try connection.run("INSERT INTO authflow_schema (version) VALUES (\(version))", operation: "test")
        try connection.run("INSERT INTO users (id, created_at) VALUES ('u-carol', 0)", operation: "test")
        try connection.run(
            """
            INSERT INTO identities (provider, subject, user_id, email_verified, is_private_email, email_disabled,
                disabled, created_at, updated_at) VALUES ('x', 'carol-42', 'u-carol', false, false, false, false, 0, 0)
            """, operation: "test")
        return connection
    }

    @Test func migratesAVersionOneDatabaseKeepingItsTokensAndAddingTheRefreshLease() async throws {
        let url = try TestDatabases.freshPostgresURL()
        let stored = StoredTokens(accessToken: "x-access-old", refreshToken: "x-refresh-old", scope: "users.read")
        do {
            // A database written by schema version 1: its token rows have no lease columns.
            let connection = try Self.databaseWithCarol(at: url, schemaVersion: 1)
            let sealed = try TokenSealing(cipher: Self.cipher).columns(stored, for: .xCarol, operation: "test")
            try connection.run(
                """
                INSERT INTO identity_tokens (provider, subject, access_token, refresh_token, scope, updated_at)
                VALUES ('x', 'carol-42', $1::bytea, $2::bytea, $3, 0)
                """, [.optional(sealed.access), .optional(sealed.refresh), .optional(sealed.scope)], operation: "test")
        }
        let database = try PostgresDatabase(url: url)
        #expect(try await database.schemaVersion() == PostgresDatabase.currentSchemaVersion)
        let accounts = PostgresAccountStore(
            database: database, cipher: Self.cipher, clock: ManualClock(StoreHarness.start))
        #expect(try await accounts.tokens(for: .xCarol) == stored)
        #expect(try await accounts.beginTokenRefresh(for: .xCarol, holder: "a", leaseDuration: 30) == .acquired(stored))
        #expect(try await accounts.beginTokenRefresh(for: .xCarol, holder: "b", leaseDuration: 30) == .held(stored))
    }

    @Test func migratesAVersionTwoDatabaseIndexingItsRefreshTokensOnTheirNextSave() async throws {
        let url = try TestDatabases.freshPostgresURL()
        let stored = StoredTokens(accessToken: "x-access-old", refreshToken: "x-refresh-old-0123456789")
        let hash = RefreshTokenIdentifier.sha512SHA512(
            RefreshTokenIdentifier.sha512SHA512Digest(of: "x-refresh-old-0123456789"))
        do {
            // A database written by schema version 2: its token rows have no lookup digests.
            let connection = try Self.databaseWithCarol(at: url, schemaVersion: 2)
            let sealed = try TokenSealing(cipher: Self.cipher).columns(stored, for: .xCarol, operation: "test")
            try connection.run(
                """
                INSERT INTO identity_tokens (provider, subject, access_token, refresh_token, updated_at)
                VALUES ('x', 'carol-42', $1::bytea, $2::bytea, 0)
                """, [.optional(sealed.access), .optional(sealed.refresh)], operation: "test")
        }
        let database = try PostgresDatabase(url: url)
        #expect(try await database.schemaVersion() == PostgresDatabase.currentSchemaVersion)
        let accounts = PostgresAccountStore(
            database: database, cipher: Self.cipher, clock: ManualClock(StoreHarness.start))
        #expect(try await accounts.tokens(for: .xCarol) == stored)
        // Not indexed until saved again with its refresh token.
        #expect(try await accounts.identity(provider: "x", refreshToken: hash) == nil)
        try await accounts.saveTokens(stored, for: .xCarol)
        #expect(try await accounts.identity(provider: "x", refreshToken: hash) == .xCarol)
        #expect(try await accounts.identity(provider: "x", refreshToken: .prefix("x-refresh-old-01")) == .xCarol)
    }

    @Test func anUnreachableServerIsATypedErrorNotAHang() throws {
        // Port 1 on loopback: nothing listens there, the connection is refused at once.
        let error = #expect(throws: StoreError.self) {
            try PostgresDatabase(url: "postgresql://authflow@127.0.0.1:1/authflow?connect_timeout=2")
        }
        #expect(error?.code == .backendFailure)
        #expect(error?.message.contains("expected to connect to PostgreSQL") == true)
    }

    @Test func recoversByItselfAfterTheServerDropsEveryConnection() async throws {
        let (database, admin, url) = try Self.twoInstances()
        let clock = ManualClock(StoreHarness.start)
        let accounts = PostgresAccountStore(database: database, cipher: Self.cipher, clock: clock)
        _ = try await accounts.createUser(.alice, identity: .appleAlice, profile: IdentityProfile())
        let name = try #require(URLComponents(string: url)?.path.dropFirst())
        // What a server restart does to clients: every other backend of the database is terminated.
        let terminated = try await admin.perform("test") { connection throws(StoreError) in
            try connection.query(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
                [.text(String(name))], operation: "test"
            ).first?.integer(0)
        }
        #expect(terminated ?? 0 >= 1)
        #expect(try await accounts.identity(.appleAlice)?.userID == .alice)
        try await accounts.checkHealth()
    }

    @Test func refusesTextWithNULBytesInsteadOfTruncatingIt() async throws {
        let (database, _, _) = try Self.twoInstances()
        let accounts = PostgresAccountStore(
            database: database, cipher: Self.cipher, clock: ManualClock(StoreHarness.start))
        _ = try await accounts.createUser(
            .alice, identity: IdentityKey(provider: "apple", subject: "a"), profile: IdentityProfile())
        let refused = await storeError { () throws(StoreError) in
            try await accounts.identity(IdentityKey(provider: "apple", subject: "a\u{0}b"))
        }
        #expect(refused?.code == .invalidValue)
    }

    @Test func spendsAStateOnceAcrossInstancesUntilItExpires() async throws {
        let (first, second, _) = try Self.twoInstances()
        let clock = ManualClock(StoreHarness.start)
        let stores = [first, second].map { PostgresFlowStore(database: $0, clock: clock) }
        let until = StoreHarness.start + 600
        let spent = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<10 {
                let store = stores[index % 2]
                group.addTask { try await store.markSpent(state: "state-1", until: until) }
            }
            var count = 0
            for try await was in group where was { count += 1 }
            return count
        }
        #expect(spent == 1)
        #expect(try await stores[0].markSpent(state: "state-2", until: until))
        clock.advance(by: 600 + FlowStoreKey.clockSkewMargin)
        #expect(try await stores[1].markSpent(state: "state-1", until: until + 600 + FlowStoreKey.clockSkewMargin))
        #expect(try await Self.count(first, "SELECT count(*) FROM spent_states") == 1)
        let plain = try await Self.count(first, "SELECT count(*) FROM spent_states WHERE state_digest = 'state-1'")
        #expect(plain == 0)
        do {
            _ = try await stores[0].markSpent(state: "state-3", until: clock.now())
            Issue.record("accepted an expiry that is not in the future")
        } catch {
            #expect(error.code == .backendFailure)
        }
        try await stores[0].checkHealth()
    }

    @Test func rateLimitsWithATokenBucketSharedByInstances() async throws {
        let (first, second, _) = try Self.twoInstances()
        let clock = ManualClock(StoreHarness.start)
        let stores = [first, second].map { PostgresRateLimitStore(database: $0, clock: clock) }
        let allowed = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<10 {
                let store = stores[index % 2]
                group.addTask { try await store.consume(key: "client-a", capacity: 4, refillPerSecond: 0.5).allowed }
            }
            var count = 0
            for try await was in group where was { count += 1 }
            return count
        }
        #expect(allowed == 4)
        let refused = try await stores[0].consume(key: "client-a", capacity: 4, refillPerSecond: 0.5)
        #expect(refused == RateLimitDecision(allowed: false, retryAfter: 2))
        // Another key has its own bucket.
        #expect(try await stores[1].consume(key: "client-b", capacity: 4, refillPerSecond: 0.5).allowed)
        clock.advance(by: 2)
        #expect(try await stores[1].consume(key: "client-a", capacity: 4, refillPerSecond: 0.5).allowed)
        #expect(try await stores[0].consume(key: "client-a", capacity: 4, refillPerSecond: 0.5).allowed == false)
        // A bucket idle long enough to be full again is purged; the next request starts a full bucket.
        clock.advance(by: 60)
        _ = try await stores[0].consume(key: "client-c", capacity: 4, refillPerSecond: 0.5)
        #expect(try await Self.count(first, "SELECT count(*) FROM rate_limits") == 1)
        let invalid = await storeError { () throws(StoreError) in
            try await stores[0].consume(key: "client-a", capacity: 0, refillPerSecond: 1)
        }
        #expect(invalid?.code == .invalidValue)
    }
}
