import AuthFlow
import AuthFlowJOSE
import AuthFlowRedis
import AuthFlowSQL
import AuthFlowSQLite
import Foundation
import Testing

@testable import AuthFlowPostgres

/// The account and session store implementations one conformance suite runs against.
enum StoreBackend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case memory
    case sqlite
    case postgres
    /// Sessions only (Redis holds no accounts): the harness pairs it with an in-memory account store.
    case redis

    var testDescription: String { rawValue }

    /// The backends of the session conformance suite: every backend this run can reach, Redis included.
    static var availableForSessions: [StoreBackend] {
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
    static var available: [StoreBackend] {
        availableForSessions.filter { $0 != .redis }
    }

    func makeHarness() throws -> StoreHarness { try StoreHarness(self) }
}

/// Fresh, empty databases on the test servers, one per harness, so tests never see each other's rows.
enum TestDatabases {
    static var postgresURL: String? {
        ProcessInfo.processInfo.environment["AUTHFLOW_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    static var redisURL: String? {
        ProcessInfo.processInfo.environment["AUTHFLOW_TEST_REDIS_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// A client on the server of `AUTHFLOW_TEST_REDIS_URL` with a fresh key prefix, so tests never share keys.
    static func freshRedisClient() throws -> RedisClient {
        guard let url = redisURL else {
            throw StoreError(
                .backendFailure,
                "expected AUTHFLOW_TEST_REDIS_URL to name a Redis server (scripts/test.sh starts one), found it unset")
        }
        return try RedisClient(endpoint: try RedisEndpoint(url: url), prefix: "authflow-test:\(UUID().uuidString):")
    }

    static var required: Bool { ProcessInfo.processInfo.environment["AUTHFLOW_REQUIRE_PEERS"] == "1" }

    /// Creates an empty database on the server of `AUTHFLOW_TEST_POSTGRES_URL` and returns its URL.
    static func freshPostgresURL() throws -> String {
        guard let url = postgresURL, var components = URLComponents(string: url) else {
            throw StoreError(
                .backendFailure,
                "expected AUTHFLOW_TEST_POSTGRES_URL to name a PostgreSQL server (scripts/test.sh starts one), "
                    + "found it unset")
        }
        // Test-only: the name is generated here from hex digits, never taken from input.
        let name = "authflow_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let admin = try PostgresConnection(conninfo: url, timeout: 30)
        try admin.run("CREATE DATABASE \(name)", operation: "create test database")
        components.path = "/" + name
        guard let fresh = components.string else {
            throw StoreError(.invalidValue, "expected a URL for the test database, found none")
        }
        return fresh
    }
}

/// Stores of one backend sharing one manual clock (and, for SQLite, one database file in a temporary directory).
final class StoreHarness: Sendable {
    static let start = Date(timeIntervalSince1970: 1_700_000_000)
    static let secret = "test-server-secret-0123456789-abcdefghijklmnop"

    let backend: StoreBackend
    let clock = ManualClock(StoreHarness.start)
    let accounts: any AccountStore
    let sessions: any SessionStore
    let directory: TemporaryDirectory?
    let database: SQLiteDatabase?
    let postgres: PostgresDatabase?

    init(_ backend: StoreBackend) throws {
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
func storeError<T>(
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
    static let appleAlice = IdentityKey(provider: "apple", subject: "000544.alice.1321")
    static let googleAlice = IdentityKey(provider: "google", subject: "1089-alice")
    static let googleAliceWork = IdentityKey(provider: "google", subject: "2277-alice-work")
    static let googleBob = IdentityKey(provider: "google", subject: "3311-bob")
    static let xCarol = IdentityKey(provider: "x", subject: "carol-42")
}

extension UserID {
    static let alice = UserID(rawValue: "u-alice")
    static let bob = UserID(rawValue: "u-bob")
    static let carol = UserID(rawValue: "u-carol")
}
