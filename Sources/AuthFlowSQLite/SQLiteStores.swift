public import AuthFlowJOSE
package import AuthFlowSQL
public import AuthFlowStores

/// The account and session stores AuthFlow's SQL layer writes into a ``SQLiteDatabase``, with its flow store: what
/// an app opens to keep its sign-ins in one SQLite file.
///
/// Every operation is one statement or one transaction; read-then-write transactions begin with
/// `BEGIN IMMEDIATE`, so concurrent writers from other connections or processes wait rather than interleave.
/// Provider tokens are encrypted with a `TokenCipher` whose associated data binds each value to its kind and
/// identity, so a ciphertext copied to another row does not decrypt. Timestamps and expiry follow the clock.
public struct SQLiteStores: Sendable {
    /// Users, linked identities, encrypted provider tokens, pending profiles and applied notifications.
    public let accounts: any AccountStore
    /// Sessions, keyed by the SHA-256 digest of their id (the id itself is never written).
    public let sessions: any SessionStore
    /// The spent states of sign-in callbacks.
    public let flows: any FlowStore

    /// Opens the stores over `database`.
    ///
    /// - Parameters:
    ///   - database: an open database.
    ///   - cipher: encrypts tokens at rest; build it from `server.secret`.
    ///   - clock: the time source for timestamps and expiry.
    public init(database: SQLiteDatabase, cipher: TokenCipher, clock: any WallClock) {
        accounts = SQLiteAccountStore(database: database, cipher: cipher, clock: clock)
        sessions = SQLiteSessionStore(database: database, clock: clock)
        flows = SQLiteFlowStore(database: database, clock: clock)
    }
}

/// The SQL account store over a SQLite file (pending profiles bounded at 100,000 unless told otherwise).
package typealias SQLiteAccountStore = SQLAccountStore<SQLiteDatabase>
/// The SQL session store over a SQLite file.
package typealias SQLiteSessionStore = SQLSessionStore<SQLiteDatabase>
