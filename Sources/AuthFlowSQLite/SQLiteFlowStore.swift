package import AuthFlowJOSE
package import AuthFlowStores
package import Foundation

/// A `FlowStore` (the set of spent sign-in states) in a ``SQLiteDatabase`` file, shared by every server
/// instance using the file.
///
/// `markSpent` is one `INSERT … ON CONFLICT (state_digest) DO NOTHING` of the state's digest
/// (`FlowStoreKey`), in a transaction that first purges expired entries, so of concurrent marks of
/// one state, from any connection or process, exactly one is the first use, and the table holds only states
/// spent within the last flow lifetime. Sign-in starts write nothing. Expiry follows the injected clock.
///
/// The mark commits without a sync of the write-ahead log: it is in the WAL file when `markSpent` returns, so a
/// process crash keeps it and every other connection sees it at once, but it reaches the disk with the next
/// synced write of the database, which in `authflow serve` is the same sign-in's account write moments later (a
/// sign-in then costs one disk sync instead of two). Only a power cut or an operating-system crash in
/// between can lose it, and only for a sign-in that did not finish: its callback could then be presented once
/// more, which still needs the same browser's flow cookie and an authorization code the provider has not
/// redeemed.
package struct SQLiteFlowStore: FlowStore, StoreBackendNaming {
    /// `"sqlite"`.
    package var backendName: String { "sqlite" }
    /// The database the store reads and writes.
    package let database: SQLiteDatabase
    let clock: any WallClock

    /// Creates a store over `database`.
    ///
    /// - Parameters:
    ///   - database: an open database (shareable with the other SQLite stores).
    ///   - clock: the time source for expiry.
    package init(database: SQLiteDatabase, clock: any WallClock) {
        self.database = database
        self.clock = clock
    }

    /// Marks `state` spent until `until` (kept `FlowStoreKey.clockSkewMargin` longer).
    ///
    /// - Returns: `true` on first use, `false` when the state was already spent (and has not expired).
    /// - Throws: `FlowStoreError` `backend_failure`.
    package func markSpent(state: String, until: Date) async throws(FlowStoreError) -> Bool {
        let now = clock.now().timeIntervalSince1970
        let parameters: [SQLiteValue] = [
            .text(FlowStoreKey.digest(of: state)), .real(FlowStoreKey.retention(until: until).timeIntervalSince1970),
        ]
        let inserted: Int
        do {
            // Not synced: the sign-in's account write, the next synced commit, syncs it (see the type's notes).
            inserted = try await database.performUnsynced("mark spent") { connection throws(StoreError) in
                try connection.transaction(immediate: true, operation: "mark spent") { () throws(StoreError) in
                    try connection.run(
                        "DELETE FROM spent_states WHERE expires_at <= ?", [.real(now)], operation: "mark spent")
                    return try connection.run(
                        "INSERT INTO spent_states (state_digest, expires_at) VALUES (?, ?) "
                            + "ON CONFLICT (state_digest) DO NOTHING",
                        parameters, operation: "mark spent")
                }
            }
        } catch {
            throw FlowStoreError(.backendFailure, error.description)
        }
        return inserted > 0
    }

    /// Reads from the database.
    ///
    /// - Throws: `FlowStoreError` `backend_failure` when the database does not answer.
    package func checkHealth() async throws(FlowStoreError) {
        do {
            _ = try await database.perform("check health") { connection throws(StoreError) in
                try connection.query("SELECT count(*) FROM spent_states", operation: "check health").first?.integer(0)
            }
        } catch {
            throw FlowStoreError(.backendFailure, error.description)
        }
    }
}
