/// The `store:` section.
public struct StoreSettings: Sendable, Hashable, CustomStringConvertible {
    /// The backend; default ``StoreKind/sqlite``.
    package let kind: StoreKind
    /// The SQLite file (relative paths are relative to the working directory); default `authflow.sqlite`.
    public let path: String
    /// `store.postgres_url`: a libpq URL (`postgresql://…`) or `key=value` conninfo; required when ``kind`` is
    /// ``StoreKind/postgres``. It may hold a password, so it is never printed (see ``description``).
    package let postgresURL: String?
    /// `store.redis_url` (`redis://…` or `unix://…`): when set, sessions and rate-limit counters live in
    /// Redis. It may hold a password, so it is never printed.
    package let redisURL: String?
    /// `store.redis_prefix`: the prefix of every Redis key; default `authflow:`.
    package let redisPrefix: String
    /// `store.operation_timeout`: seconds a PostgreSQL or Redis operation may take (waiting for a connection,
    /// connecting, its statements or commands) before it fails and the route answers 503; default 5.
    package let operationTimeout: Double

    /// The default of ``operationTimeout``.
    package static let defaultOperationTimeout = 5.0

    /// Creates store settings.
    package init(
        kind: StoreKind = .sqlite, path: String = "authflow.sqlite", postgresURL: String? = nil,
        redisURL: String? = nil, redisPrefix: String = "authflow:",
        operationTimeout: Double = StoreSettings.defaultOperationTimeout
    ) {
        self.operationTimeout = operationTimeout
        self.kind = kind
        self.path = path
        self.postgresURL = postgresURL
        self.redisURL = redisURL
        self.redisPrefix = redisPrefix
    }

    /// The kind, path and prefix; the URLs only as set or not, since they may carry a password.
    public var description: String {
        "StoreSettings(kind: \(kind.rawValue), path: \(path), postgres_url: \(postgresURL == nil ? "none" : "<redacted>"), "
            + "redis_url: \(redisURL == nil ? "none" : "<redacted>"), redis_prefix: \(redisPrefix), "
            + "operation_timeout: \(operationTimeout))"
    }
}
