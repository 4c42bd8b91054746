/// The `store:` section.
public struct StoreSettings: Sendable, Hashable, CustomStringConvertible {
    /// The backend; default ``StoreKind/sqlite``.
    public let kind: StoreKind
    /// The SQLite file (relative paths are relative to the working directory); default `authflow.sqlite`.
    public let path: String
    /// `store.postgres_url`: a libpq URL (`postgresql://…`) or `key=value` conninfo; required when ``kind`` is
    /// ``StoreKind/postgres``. It may hold a password, so it is never printed (see ``description``).
    public let postgresURL: String?

    /// Creates store settings.
    public init(kind: StoreKind = .sqlite, path: String = "authflow.sqlite", postgresURL: String? = nil) {
        self.kind = kind
        self.path = path
        self.postgresURL = postgresURL
    }

    /// The kind and path; the PostgreSQL URL only as set or not, since it may carry a password.
    public var description: String {
        "StoreSettings(kind: \(kind.rawValue), path: \(path), postgres_url: \(postgresURL == nil ? "none" : "<redacted>"))"
    }
}
