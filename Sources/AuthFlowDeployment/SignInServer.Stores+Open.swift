import AuthFlowPostgres
import AuthFlowRedis
import AuthFlowSQLite
public import AuthFlowServer

extension SignInServer.Stores {
    /// The stores `store:` selects: in memory, or one SQLite file or one PostgreSQL database (shared by every
    /// instance using it) holding flows, accounts (tokens encrypted with AES-256-GCM under a key derived from
    /// `secret`) and sessions; with `store.redis_url`, sessions, spent flow states and rate-limit counters live in Redis (keys under
    /// `store.redis_prefix`). Tokens sealed under one of `previousSecrets` still open, and are sealed again under
    /// `secret` when next written. Each database and Redis client runs its blocking operations on a pool of its
    /// own.
    ///
    /// - Throws: `StoreError` when a database cannot be opened or migrated or Redis cannot be reached, or
    ///   `JOSEError` when the secret cannot key the token cipher.
    public static func open(
        _ settings: StoreSettings, secret: Secret, previousSecrets: [Secret] = [], clock: any WallClock,
        random: any SecureRandom
    ) throws -> SignInServer.Stores {
        try open(
            settings, secret: secret, previousSecrets: previousSecrets, clock: clock, random: random,
            blockingThreads: nil)
    }

    /// ``open(_:secret:previousSecrets:clock:random:)`` whose blocking operations run on `blockingThreads` (pass
    /// the HTTP server's, so that a handler's operation runs right on its thread); without them each database and
    /// Redis client owns a pool of its own.
    package static func open(
        _ settings: StoreSettings, secret: Secret, previousSecrets: [Secret] = [], clock: any WallClock,
        random: any SecureRandom, blockingThreads: BlockingThreads?
    ) throws -> SignInServer.Stores {
        let keyring = try SecretKeyring(current: secret.value, previous: previousSecrets.map(\.value))
        var stores = try openDatabase(
            settings, keyring: keyring, clock: clock, random: random, blockingThreads: blockingThreads)
        if let url = settings.redisURL {
            let client = try RedisClient(
                endpoint: try RedisEndpoint(url: url), prefix: settings.redisPrefix,
                connectTimeout: settings.operationTimeout, commandTimeout: settings.operationTimeout,
                blockingThreads: blockingThreads)
            let redis = RedisStores(client: client, clock: clock)
            stores.sessions = redis.sessions
            stores.flows = redis.flows
            stores.rateLimits = redis.rateLimits
        }
        return stores
    }

    private static func openDatabase(
        _ settings: StoreSettings, keyring: SecretKeyring, clock: any WallClock, random: any SecureRandom,
        blockingThreads: BlockingThreads?
    ) throws -> SignInServer.Stores {
        switch settings.kind {
        case .memory:
            return .memory(clock: clock)
        case .sqlite:
            let database = try SQLiteDatabase(path: settings.path, blockingThreads: blockingThreads)
            let cipher = try keyring.cipher(random: random)
            let sqlite = SQLiteStores(database: database, cipher: cipher, clock: clock)
            return SignInServer.Stores(
                flows: sqlite.flows, accounts: sqlite.accounts, sessions: sqlite.sessions,
                rateLimits: InMemoryRateLimitStore(clock: clock))
        case .postgres:
            guard let url = settings.postgresURL else {
                throw StoreError(.invalidValue, "expected store.postgres_url for store.kind postgres, found none")
            }
            let database = try PostgresDatabase(
                url: url, operationTimeout: settings.operationTimeout, blockingThreads: blockingThreads)
            let cipher = try keyring.cipher(random: random)
            let postgres = PostgresStores(database: database, cipher: cipher, clock: clock)
            return SignInServer.Stores(
                flows: postgres.flows, accounts: postgres.accounts, sessions: postgres.sessions,
                rateLimits: postgres.rateLimits)
        }
    }
}
