public import AuthFlowJOSE
package import AuthFlowSQL
public import AuthFlowStores

/// The stores AuthFlow keeps in a ``PostgresDatabase``, shared by every server instance using the database: what
/// an app opens to share sign-ins between instances.
///
/// Unique constraints make races between instances safe: users and identities are inserted with
/// `ON CONFLICT DO NOTHING`, so of two instances completing the first sign-in of one new identity at once
/// exactly one creates the user, and a notification id is applied once however many instances receive it.
/// Read-then-write operations lock the rows they read (`FOR UPDATE`). Provider tokens are encrypted with a
/// key derived from the server secret exactly as in the SQLite stores. Timestamps and expiry follow the clock.
public struct PostgresStores: Sendable {
    /// Users, linked identities, encrypted provider tokens, pending profiles and applied notifications.
    public let accounts: any AccountStore
    /// Sessions, keyed by the SHA-256 digest of their id (the id itself is never written).
    public let sessions: any SessionStore
    /// The spent states of sign-in callbacks.
    public let flows: any FlowStore
    /// Rate-limit token buckets shared by the instances.
    public let rateLimits: any RateLimitStore

    /// Opens the stores over `database` with tokens sealed as the SQLite stores seal them (AES-256-GCM under a key
    /// derived from `secret`, `server.secret`'s value of at least 32 bytes; what `previousSecrets`, newest first, sealed
    /// still opens and is sealed again under `secret` when next written), on `clock`'s time and `random`'s nonces.
    ///
    /// - Throws: `JOSEError` `weakKey` when a secret is shorter than 32 bytes.
    public init(
        database: PostgresDatabase, secret: String, previousSecrets: [String] = [], clock: any WallClock,
        random: any SecureRandom
    ) throws(JOSEError) {
        let cipher = try TokenSealing.cipher(secret: secret, previousSecrets: previousSecrets, random: random)
        self.init(database: database, cipher: cipher, clock: clock)
    }

    /// Opens the stores over `database`, encrypting tokens at rest with `cipher`.
    package init(database: PostgresDatabase, cipher: TokenCipher, clock: any WallClock) {
        accounts = PostgresAccountStore(database: database, cipher: cipher, clock: clock)
        sessions = PostgresSessionStore(database: database, clock: clock)
        flows = PostgresFlowStore(database: database, clock: clock)
        rateLimits = PostgresRateLimitStore(database: database, clock: clock)
    }
}

/// The SQL account store over PostgreSQL (pending profiles unbounded).
package typealias PostgresAccountStore = SQLAccountStore<PostgresDatabase>
/// The SQL session store over PostgreSQL.
package typealias PostgresSessionStore = SQLSessionStore<PostgresDatabase>
