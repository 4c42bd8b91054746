package import AuthFlowSQL
package import AuthFlowStores

/// The database under the shared SQL stores (AuthFlowSQL): one serial connection; transactions that write begin with
/// `BEGIN IMMEDIATE` (the database's write lock), so SQLite needs no row locks.
extension SQLiteDatabase: SQLDatabase {
    package var backendName: String { "sqlite" }
    package var defaultPendingCapacity: Int? { 100_000 }
    package var locksRows: Bool { false }

    package func withConnection<T: Sendable>(
        _ operation: String, _ body: @escaping @Sendable (any SQLConnection) throws(StoreError) -> T
    ) async throws(StoreError) -> T {
        try await perform(operation) { (connection: SQLiteConnection) throws(StoreError) in
            try body(SQLiteStatements(connection: connection))
        }
    }

    package func withTransaction<T: Sendable>(
        _ operation: String, writes: Bool, _ body: @escaping @Sendable (any SQLConnection) throws(StoreError) -> T
    ) async throws(StoreError) -> T {
        try await perform(operation) { (connection: SQLiteConnection) throws(StoreError) in
            try connection.transaction(immediate: writes, operation: operation) { () throws(StoreError) in
                try body(SQLiteStatements(connection: connection))
            }
        }
    }

    /// Commits without syncing the write-ahead log: the commit reaches the log (a process crash keeps it) but not
    /// the disk; the next synced operation or checkpoint syncs it along with its own, since the whole log is
    /// synced. So a power cut can lose only such unsynced commits, never an earlier synced one.
    package func withUnsyncedWriteTransaction<T: Sendable>(
        _ operation: String, _ body: @escaping @Sendable (any SQLConnection) throws(StoreError) -> T
    ) async throws(StoreError) -> T {
        try await performUnsynced(operation) { (connection: SQLiteConnection) throws(StoreError) in
            try connection.transaction(immediate: true, operation: operation) { () throws(StoreError) in
                try body(SQLiteStatements(connection: connection))
            }
        }
    }
}

/// A connection lent to the shared store layer: its values become SQLite's.
struct SQLiteStatements: SQLConnection {
    let connection: SQLiteConnection

    func query(_ sql: String, _ parameters: [StoreValue], operation: String) throws(StoreError) -> [any StoreRow] {
        try connection.query(sql, parameters.map(SQLiteValue.init), operation: operation)
    }

    func run(_ sql: String, _ parameters: [StoreValue], operation: String) throws(StoreError) -> Int {
        try connection.run(sql, parameters.map(SQLiteValue.init), operation: operation)
    }
}
