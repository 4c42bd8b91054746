public import AuthFlowJOSE
package import AuthFlowSQL
public import AuthFlowStores

/// The account and session stores AuthFlow's SQL layer writes into a ``SQLiteDatabase``, with its flow store: what
/// an app opens to keep its sign-ins in one SQLite file.
///
/// Every operation is one statement or one transaction; read-then-write transactions begin with
/// `BEGIN IMMEDIATE`, so concurrent writers from other connections or processes wait rather than interleave.
/// Provider tokens are encrypted under a key derived from the server secret, with associated data binding each
/// value to its kind and identity, so a ciphertext copied to another row does not decrypt. Timestamps and expiry follow the clock.
public struct SQLiteStores: Sendable {
    /// Users, linked identities, encrypted provider tokens, pending profiles and applied notifications.
    public let accounts: any AccountStore
    /// Sessions, keyed by the SHA-256 digest of their id (the id itself is never written).
    public let sessions: any SessionStore
    /// The spent states of sign-in callbacks.
    public let flows: any FlowStore

    /// Opens the stores over `database`, encrypting tokens at rest (AES-256-GCM) under a key derived from `secret`.
    ///
    /// - Parameters:
    ///   - database: an open database.
    ///   - secret: the server secret (`server.secret`'s value), at least 32 bytes.
    ///   - previousSecrets: secrets `secret` replaced (`server.previous_secrets`), newest first: tokens sealed
    ///     under them still open, and are sealed again under `secret` when next written.
    ///   - clock: the time source for timestamps and expiry.
    ///   - random: the source of the encryption nonces.
    /// - Throws: `JOSEError` `weakKey` when a secret is shorter than 32 bytes.
    public init(
        database: SQLiteDatabase, secret: String, previousSecrets: [String] = [], clock: any WallClock,
        random: any SecureRandom
    ) throws(JOSEError) {
        let cipher = try TokenSealing.cipher(secret: secret, previousSecrets: previousSecrets, random: random)
        self.init(database: database, cipher: cipher, clock: clock)
    }

    /// Opens the stores over `database`, encrypting tokens at rest with `cipher`.
    package init(database: SQLiteDatabase, cipher: TokenCipher, clock: any WallClock) {
        accounts = SQLiteAccountStore(database: database, cipher: cipher, clock: clock)
        sessions = SQLiteSessionStore(database: database, clock: clock)
        flows = SQLiteFlowStore(database: database, clock: clock)
    }
}

/// The SQL account store over a SQLite file (pending profiles bounded at 100,000 unless told otherwise).
package typealias SQLiteAccountStore = SQLAccountStore<SQLiteDatabase>
/// The SQL session store over a SQLite file.
package typealias SQLiteSessionStore = SQLSessionStore<SQLiteDatabase>
