import AuthFlow
import AuthFlowJOSE
import AuthFlowSQLite
import Foundation
import Testing

/// The account and session store implementations one conformance suite runs against.
enum StoreBackend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case memory
    case sqlite

    var testDescription: String { rawValue }

    func makeHarness() throws -> StoreHarness { try StoreHarness(self) }
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

    init(_ backend: StoreBackend) throws {
        self.backend = backend
        switch backend {
        case .memory:
            accounts = InMemoryAccountStore(clock: clock)
            sessions = InMemorySessionStore(clock: clock)
            directory = nil
            database = nil
        case .sqlite:
            let directory = try TemporaryDirectory()
            let database = try SQLiteDatabase(path: directory.path("authflow.sqlite"))
            accounts = SQLiteAccountStore(
                database: database, cipher: try TokenCipher(secret: Self.secret, random: SystemRandom()), clock: clock)
            sessions = SQLiteSessionStore(database: database, clock: clock)
            self.directory = directory
            self.database = database
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
