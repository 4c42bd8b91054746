public import AuthFlow
public import AuthFlowJOSE

/// A `SessionStore` in a ``PostgresDatabase``, shared by every server instance using the database.
///
/// The operations are the shared SQL layer's (`SQLBackedSessionStore`): sessions are keyed by the SHA-256
/// digest of their id, the id itself is never written; each operation is one statement (creation also purges
/// expired sessions in the same transaction). Expiry follows the injected clock.
public struct PostgresSessionStore: SQLBackedSessionStore, StoreBackendNaming {
    /// `"postgres"`.
    public var backendName: String { "postgres" }
    /// The database the store reads and writes.
    public let database: PostgresDatabase
    /// The shared SQL layer, on ``PostgresSessionStore/database``.
    public let sql: SQLSessionStore

    /// Creates a store over `database`.
    ///
    /// - Parameters:
    ///   - database: an open database (shareable with the other PostgreSQL stores).
    ///   - clock: the time source for expiry.
    public init(database: PostgresDatabase, clock: any WallClock) {
        self.database = database
        self.sql = SQLSessionStore(backend: database, clock: clock)
    }
}
