package import AuthFlowJOSE
package import AuthFlowStores
package import Foundation

/// A `FlowStore` (the set of spent sign-in states) in a ``PostgresDatabase``, shared by every server instance
/// using the database, so a state spent on one instance is spent for all.
///
/// `markSpent(state:until:)` is one `INSERT … ON CONFLICT` of the state's digest (never the state), so of
/// concurrent callers with one state, from any instance, exactly one spends it. Expiry follows the injected
/// clock.
package struct PostgresFlowStore: FlowStore, StoreBackendNaming {
    /// `"postgres"`.
    package var backendName: String { "postgres" }
    /// The database the store reads and writes.
    package let database: PostgresDatabase
    let clock: any WallClock

    /// Creates a store over `database`.
    ///
    /// - Parameters:
    ///   - database: an open database (shareable with the other PostgreSQL stores).
    ///   - clock: the time source for expiry.
    package init(database: PostgresDatabase, clock: any WallClock) {
        self.database = database
        self.clock = clock
    }

    /// Records `state` as spent until `until`; `true` when this call spent it (first use, from any instance),
    /// `false` when it was already spent (kept `FlowStoreKey.clockSkewMargin` beyond `until`). Only the
    /// state's SHA-256 digest is stored, with one `INSERT … ON CONFLICT` (an expired entry is replaced; expired
    /// entries are purged in the same transaction).
    ///
    /// - Throws: `FlowStoreError` `backend_failure` (also for an `until` not in the future).
    package func markSpent(state: String, until: Date) async throws(FlowStoreError) -> Bool {
        let now = clock.now().timeIntervalSince1970
        let expiry = until.timeIntervalSince1970
        guard expiry.isFinite, expiry > now else {
            throw FlowStoreError(
                .backendFailure, "expected a spent-state expiry in the future, found one at or before now")
        }
        let retention = FlowStoreKey.retention(until: until).timeIntervalSince1970
        let parameters: [PostgresValue] = [.text(FlowStoreKey.digest(of: state)), .real(retention), .real(now)]
        do {
            return try await database.perform("markSpent") { connection throws(StoreError) in
                try connection.transaction(operation: "markSpent") { () throws(StoreError) in
                    try connection.run(
                        "DELETE FROM spent_states WHERE expires_at <= $1", [.real(now)], operation: "markSpent")
                    return try connection.run(
                        """
                        INSERT INTO spent_states (state_digest, expires_at) VALUES ($1, $2)
                        ON CONFLICT (state_digest) DO UPDATE SET expires_at = excluded.expires_at
                            WHERE spent_states.expires_at <= $3
                        """, parameters, operation: "markSpent") > 0
                }
            }
        } catch {
            throw Self.flowError(error)
        }
    }

    /// Checks that the server answers and holds the schema.
    ///
    /// - Throws: `FlowStoreError` `backendFailure`.
    package func checkHealth() async throws(FlowStoreError) {
        do {
            try await database.checkHealth()
        } catch {
            throw Self.flowError(error)
        }
    }

    private static func flowError(_ error: StoreError) -> FlowStoreError {
        FlowStoreError(error.code == .corruptData ? .invalidRecord : .backendFailure, error.description)
    }
}
