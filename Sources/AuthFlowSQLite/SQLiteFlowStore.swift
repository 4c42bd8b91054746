public import AuthFlow
public import AuthFlowJOSE
import Foundation

/// A `FlowStore` in a ``SQLiteDatabase`` file, shared by every server instance using the file.
///
/// `put` is one `INSERT` (in the same transaction expired flows are purged, so a database never fills with
/// abandoned sign-ins); `take` is one `DELETE … WHERE state = ? AND expires_at > ? RETURNING record`, so of
/// concurrent takes of one state, from any connection or process, exactly one gets the record. Records are
/// stored in the core's serialized form. Expiry follows the injected clock.
public struct SQLiteFlowStore: FlowStore {
    /// The database the store reads and writes.
    public let database: SQLiteDatabase
    let clock: any WallClock

    /// Creates a store over `database`.
    ///
    /// - Parameters:
    ///   - database: an open database (shareable with the other SQLite stores).
    ///   - clock: the time source for expiry.
    public init(database: SQLiteDatabase, clock: any WallClock) {
        self.database = database
        self.clock = clock
    }

    /// Stores `record` under `record.state` for `ttl` seconds.
    ///
    /// - Throws: `FlowStoreError` `invalidTTL`, `duplicateState` (a live record has that state), or
    ///   `backendFailure`.
    public func put(_ record: FlowRecord, ttl: Double) async throws(FlowStoreError) {
        guard ttl.isFinite, ttl > 0 else {
            throw FlowStoreError(.invalidTTL, "expected a positive TTL in seconds, found \(ttl)")
        }
        let now = clock.now().timeIntervalSince1970
        let parameters: [SQLiteValue] = [.text(record.state), .blob(record.serialized()), .real(now + ttl)]
        let inserted: Int
        do {
            inserted = try await database.perform("put") { connection throws(StoreError) in
                try connection.transaction(immediate: true, operation: "put") { () throws(StoreError) in
                    try connection.run("DELETE FROM flow_states WHERE expires_at <= ?", [.real(now)], operation: "put")
                    return try connection.run(
                        "INSERT INTO flow_states (state, record, expires_at) VALUES (?, ?, ?) ON CONFLICT (state) DO NOTHING",
                        parameters, operation: "put")
                }
            }
        } catch {
            throw Self.flowError(error)
        }
        guard inserted > 0 else {
            throw FlowStoreError(.duplicateState, "expected a new state, found one that is already stored")
        }
    }

    /// Removes and returns the live record for `state`; `nil` when unknown, taken or expired.
    ///
    /// - Throws: `FlowStoreError` `invalidRecord` when the stored bytes are not a flow record,
    ///   `backendFailure`.
    public func take(state: String) async throws(FlowStoreError) -> FlowRecord? {
        let parameters: [SQLiteValue] = [.text(state), .real(clock.now().timeIntervalSince1970)]
        let bytes: [UInt8]?
        do {
            bytes = try await database.perform("take") { connection throws(StoreError) in
                try connection.query(
                    "DELETE FROM flow_states WHERE state = ? AND expires_at > ? RETURNING record", parameters,
                    operation: "take"
                ).first?.blob(0)
            }
        } catch {
            throw Self.flowError(error)
        }
        guard let bytes else { return nil }
        return try FlowRecord(serialized: bytes)
    }

    private static func flowError(_ error: StoreError) -> FlowStoreError {
        FlowStoreError(error.code == .corruptData ? .invalidRecord : .backendFailure, error.description)
    }
}
