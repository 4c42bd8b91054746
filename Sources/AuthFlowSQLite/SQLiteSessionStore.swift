public import AuthFlow
public import AuthFlowJOSE

/// A `SessionStore` in a ``SQLiteDatabase`` file.
///
/// The operations are the shared SQL layer's (`SQLBackedSessionStore`): sessions are keyed by the SHA-256
/// digest of their id, the id itself is never written; each operation is one statement (creation also purges
/// expired sessions in the same transaction). Expiry follows the injected clock.
public struct SQLiteSessionStore: SQLBackedSessionStore, StoreBackendNaming {
    /// `"sqlite"`.
    public var backendName: String { "sqlite" }
    /// The database the store reads and writes.
    public let database: SQLiteDatabase
    /// The shared SQL layer, on ``SQLiteSessionStore/database``.
    public let sql: SQLSessionStore

    /// Creates a store over `database`.
    ///
    /// - Parameters:
    ///   - database: an open database (shareable with the other SQLite stores).
    ///   - clock: the time source for expiry.
    public init(database: SQLiteDatabase, clock: any WallClock) {
        self.database = database
        self.sql = SQLSessionStore(backend: database, clock: clock)
    }
}
