public import AuthFlow
public import AuthFlowJOSE

/// An `AccountStore` in a ``PostgresDatabase``, shared by every server instance using the database.
///
/// The operations are the shared SQL layer's (`SQLBackedAccountStore`): each is one statement or one
/// transaction. Unique constraints make races between instances safe: users and identities are inserted with
/// `ON CONFLICT DO NOTHING`, so of two instances completing the first sign-in of one new identity at once
/// exactly one creates the user (the other gets `identityAlreadyLinked`), and a notification id is applied
/// once however many instances receive it. Read-then-write operations lock the rows they read
/// (`FOR UPDATE`). Provider tokens are encrypted with a `TokenCipher` exactly as in the SQLite store
/// (associated data binds each value to its kind and identity). Timestamps and expiry follow the injected
/// clock.
public struct PostgresAccountStore: SQLBackedAccountStore, StoreBackendNaming {
    /// `"postgres"`.
    public var backendName: String { "postgres" }
    /// The database the store reads and writes.
    public let database: PostgresDatabase
    /// The shared SQL layer, on ``PostgresAccountStore/database``.
    public let sql: SQLAccountStore

    /// Creates a store over `database`.
    ///
    /// - Parameters:
    ///   - database: an open database (shareable with the other PostgreSQL stores).
    ///   - cipher: encrypts tokens at rest; build it from `server.secret`.
    ///   - clock: the time source for timestamps and expiry.
    public init(database: PostgresDatabase, cipher: TokenCipher, clock: any WallClock) {
        self.database = database
        self.sql = SQLAccountStore(backend: database, cipher: cipher, clock: clock, pendingCapacity: nil)
    }
}
