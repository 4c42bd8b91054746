package import AuthFlowJOSE
package import AuthFlowPostgres
import AuthFlowRedis
import AuthFlowSQL
package import AuthFlowSQLite
package import AuthFlowStores
package import Foundation
package import Testing

/// The account and session store implementations one conformance suite runs against.
package enum StoreBackend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case memory
    case sqlite
    case postgres
    /// Sessions only (Redis holds no accounts): the harness pairs it with an in-memory account store.
    case redis

    package var testDescription: String { rawValue }

    /// The backends of the session conformance suite: every backend this run can reach, Redis included.
    package static var availableForSessions: [StoreBackend] {
        allCases.filter { $0 != .postgres && $0 != .redis || reachable($0) }
    }

    private static func reachable(_ backend: StoreBackend) -> Bool {
        switch backend {
        case .postgres: return TestDatabases.postgresURL != nil || TestDatabases.required
        case .redis: return TestDatabases.redisURL != nil || TestDatabases.required
        default: return true
        }
    }

    /// The backends this run can reach: PostgreSQL needs `AUTHFLOW_TEST_POSTGRES_URL` (set by
    /// `scripts/test.sh`); without it the PostgreSQL case is left out, unless `AUTHFLOW_REQUIRE_PEERS=1`,
    /// when it stays in and fails.
    package static var available: [StoreBackend] {
        availableForSessions.filter { $0 != .redis }
    }

    package func makeHarness() throws -> StoreHarness { try StoreHarness(self) }
}

/// Stores of one backend sharing one manual clock (and, for SQLite, one database file in a temporary directory).
package final class StoreHarness: Sendable {
    package static let start = Date(timeIntervalSince1970: 1_700_000_000)
    package static let secret = "test-server-secret-0123456789-abcdefghijklmnop"

    package let backend: StoreBackend
    package let clock = ManualClock(StoreHarness.start)
    package let accounts: any AccountStore
    package let sessions: any SessionStore
    package let directory: TemporaryDirectory?
    package let database: SQLiteDatabase?
    package let postgres: PostgresDatabase?

    package init(_ backend: StoreBackend) throws {
        self.backend = backend
        switch backend {
        case .memory:
            accounts = InMemoryAccountStore(clock: clock)
            sessions = InMemorySessionStore(clock: clock)
            directory = nil
            database = nil
            postgres = nil
        case .sqlite:
            let directory = try TemporaryDirectory()
            let database = try SQLiteDatabase(path: directory.path("authflow.sqlite"))
            accounts = SQLiteAccountStore(
                database: database, cipher: try TokenCipher(secret: Self.secret, random: SystemRandom()), clock: clock)
            sessions = SQLiteSessionStore(database: database, clock: clock)
            self.directory = directory
            self.database = database
            postgres = nil
        case .postgres:
            let database = try PostgresDatabase(url: try TestDatabases.freshPostgresURL())
            accounts = PostgresAccountStore(
                database: database, cipher: try TokenCipher(secret: Self.secret, random: SystemRandom()), clock: clock)
            sessions = PostgresSessionStore(database: database, clock: clock)
            directory = nil
            self.database = nil
            postgres = database
        case .redis:
            accounts = InMemoryAccountStore(clock: clock)
            sessions = RedisSessionStore(client: try TestDatabases.freshRedisClient(), clock: clock)
            directory = nil
            database = nil
            postgres = nil
        }
    }
}

/// Runs `body` and returns the ``StoreError`` it throws, recording an issue when it throws nothing.
package func storeError<T>(
    _ body: () async throws(StoreError) -> T, sourceLocation: Testing.SourceLocation = #_sourceLocation
) async -> StoreError? {
    do {
        _ = try await body()
        Issue.record("expected a StoreError, found success", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

extension IdentityKey {
    package static let appleAlice = IdentityKey(provider: "apple", subject: "000544.alice.1321")
    package static let googleAlice = IdentityKey(provider: "google", subject: "1089-alice")
    package static let googleAliceWork = IdentityKey(provider: "google", subject: "2277-alice-work")
    package static let googleBob = IdentityKey(provider: "google", subject: "3311-bob")
    package static let xCarol = IdentityKey(provider: "x", subject: "carol-42")
}

extension UserID {
    package static let alice = UserID(rawValue: "u-alice")
    package static let bob = UserID(rawValue: "u-bob")
    package static let carol = UserID(rawValue: "u-carol")
}
