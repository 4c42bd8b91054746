package import AuthFlowStores

/// One connection of a SQL backend, lent to one operation.
///
/// Statements are written once for every backend: parameters are `$1`, `$2`, … numbered in the order they
/// first appear (PostgreSQL's positional parameters; SQLite numbers `$NNN` names in order of appearance), no
/// casts, booleans as `TRUE`/`FALSE` or bound values.
package protocol SQLConnection {
    /// Runs one statement and returns its rows.
    func query(_ sql: String, _ parameters: [StoreValue], operation: String) throws(StoreError) -> [any StoreRow]
    /// Runs one statement and returns how many rows it changed.
    func run(_ sql: String, _ parameters: [StoreValue], operation: String) throws(StoreError) -> Int
}

extension SQLConnection {
    /// Runs one statement and returns its rows.
    @discardableResult
    package func query(_ sql: String, _ parameters: StoreValue..., operation: String) throws(StoreError)
        -> [any StoreRow]
    {
        try query(sql, parameters, operation: operation)
    }

    /// Runs one statement and returns how many rows it changed.
    @discardableResult
    package func run(_ sql: String, _ parameters: StoreValue..., operation: String) throws(StoreError) -> Int {
        try run(sql, parameters, operation: operation)
    }
}

/// A SQL database the shared store layer runs on (SQLite, PostgreSQL): it lends connections and runs
/// transactions; the account and session logic above it is written once.
package protocol SQLDatabase: Sendable {
    /// The database's name in `GET /healthz` (`sqlite`, `postgres`).
    var backendName: String { get }

    /// The most live pending profiles an account store keeps at once unless told otherwise; `nil` for no bound.
    var defaultPendingCapacity: Int? { get }

    /// Whether `SELECT … FOR UPDATE` / `FOR SHARE` lock rows (PostgreSQL, where instances write at once);
    /// SQLite takes the database's write lock at `BEGIN IMMEDIATE` instead.
    var locksRows: Bool { get }

    /// Runs `body` on a connection outside any transaction (each statement commits by itself).
    func withConnection<T: Sendable>(
        _ operation: String, _ body: @escaping @Sendable (any SQLConnection) throws(StoreError) -> T
    ) async throws(StoreError) -> T

    /// Runs `body` in one transaction, committed when it returns and rolled back when it throws; `writes`
    /// says it will write (SQLite then takes the write lock at `BEGIN`).
    func withTransaction<T: Sendable>(
        _ operation: String, writes: Bool, _ body: @escaping @Sendable (any SQLConnection) throws(StoreError) -> T
    ) async throws(StoreError) -> T

    /// Runs `body` in one write transaction whose loss after a power cut or an operating-system crash (not a
    /// process crash) is harmless, such as a new session's (its browser is then signed out). The backend may
    /// commit it without waiting for the disk; the next synced commit makes it durable too. Deletions and
    /// account or token changes never use it.
    func withUnsyncedWriteTransaction<T: Sendable>(
        _ operation: String, _ body: @escaping @Sendable (any SQLConnection) throws(StoreError) -> T
    ) async throws(StoreError) -> T
}

extension SQLDatabase {
    /// A synced write transaction, for backends that do not relax durability.
    package func withUnsyncedWriteTransaction<T: Sendable>(
        _ operation: String, _ body: @escaping @Sendable (any SQLConnection) throws(StoreError) -> T
    ) async throws(StoreError) -> T {
        try await withTransaction(operation, writes: true, body)
    }

    /// `" FOR UPDATE"` where rows are locked, else nothing.
    package var forUpdate: String { locksRows ? " FOR UPDATE" : "" }

    /// `" FOR SHARE"` where rows are locked, else nothing.
    package var forShare: String { locksRows ? " FOR SHARE" : "" }
}
