package import AuthFlowSQL
package import AuthFlowStores

/// The database under the shared SQL stores (AuthFlowSQL): a pooled connection per operation; concurrent instances
/// are kept apart by row locks (`FOR UPDATE`, `FOR SHARE`) and unique constraints.
extension PostgresDatabase: SQLDatabase {
    package var backendName: String { "postgres" }
    package var defaultPendingCapacity: Int? { nil }
    package var locksRows: Bool { true }

    package func withConnection<T: Sendable>(
        _ operation: String, _ body: @escaping @Sendable (any SQLConnection) throws(StoreError) -> T
    ) async throws(StoreError) -> T {
        try await perform(operation) { (connection: PostgresConnection) throws(StoreError) in
            try body(PostgresStatements(connection: connection))
        }
    }

    package func withTransaction<T: Sendable>(
        _ operation: String, writes: Bool, _ body: @escaping @Sendable (any SQLConnection) throws(StoreError) -> T
    ) async throws(StoreError) -> T {
        try await perform(operation) { (connection: PostgresConnection) throws(StoreError) in
            try connection.transaction(operation: operation) { () throws(StoreError) in
                try body(PostgresStatements(connection: connection))
            }
        }
    }
}

/// A connection lent to the shared store layer.
struct PostgresStatements: SQLConnection {
    let connection: PostgresConnection

    func query(_ sql: String, _ parameters: [StoreValue], operation: String) throws(StoreError) -> [any StoreRow] {
        try connection.query(sql, parameters.map(PostgresValue.init), operation: operation)
    }

    func run(_ sql: String, _ parameters: [StoreValue], operation: String) throws(StoreError) -> Int {
        try connection.run(sql, parameters.map(PostgresValue.init), operation: operation)
    }
}
