public import AuthFlow
public import AuthFlowJOSE

/// An `AccountStore` in a ``SQLiteDatabase`` file.
///
/// The operations are the shared SQL layer's (`SQLBackedAccountStore`): each is one statement or one
/// transaction, and read-then-write transactions begin with `BEGIN IMMEDIATE`, so concurrent writers from
/// other connections or processes wait rather than interleave. Provider tokens are encrypted with a
/// `TokenCipher` whose associated data binds each value to its kind and identity, so a ciphertext copied to
/// another row does not decrypt. Timestamps and expiry follow the injected clock.
public struct SQLiteAccountStore: SQLBackedAccountStore, StoreBackendNaming {
    /// `"sqlite"`.
    public var backendName: String { "sqlite" }
    /// The database the store reads and writes.
    public let database: SQLiteDatabase
    /// The shared SQL layer, on ``SQLiteAccountStore/database``.
    public let sql: SQLAccountStore

    /// Creates a store over `database`.
    ///
    /// - Parameters:
    ///   - database: an open database (shareable with ``SQLiteSessionStore`` and ``SQLiteFlowStore``).
    ///   - cipher: encrypts tokens at rest; build it from `server.secret`.
    ///   - clock: the time source for timestamps and expiry.
    ///   - pendingCapacity: the most live pending profiles (Apple's first-login names) kept at once.
    public init(database: SQLiteDatabase, cipher: TokenCipher, clock: any WallClock, pendingCapacity: Int = 100_000) {
        self.database = database
        self.sql = SQLAccountStore(backend: database, cipher: cipher, clock: clock, pendingCapacity: pendingCapacity)
    }
}
