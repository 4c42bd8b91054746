/// Which backend keeps flows, accounts and sessions.
package enum StoreKind: String, Sendable, Hashable, CaseIterable {
    /// In process memory: for tests and demos; lost on restart and not shared between instances.
    case memory
    /// A SQLite file (the default).
    case sqlite
    /// A PostgreSQL database (`store.postgres_url`), shared by every instance pointed at it.
    case postgres
}
