public import AuthFlow
public import AuthFlowJOSE
public import Foundation

/// A ``FlowStore`` in a ``PostgresDatabase``, shared by every server instance using the database, so a
/// sign-in started on one instance completes on another.
///
/// `put` is one `INSERT … ON CONFLICT DO NOTHING` (in the same transaction expired flows are purged); `take`
/// is one `DELETE … WHERE state = $1 AND expires_at > $2 RETURNING record`, so of concurrent takes of one
/// state, from any instance, exactly one gets the record. ``markSpent(state:until:)`` keeps only a digest of
/// a state, for stores that record spent states rather than whole flows. Expiry follows the injected clock.
public struct PostgresFlowStore: FlowStore {
    /// The database the store reads and writes.
    public let database: PostgresDatabase
    let clock: any WallClock

    /// Creates a store over `database`.
    ///
    /// - Parameters:
    ///   - database: an open database (shareable with the other PostgreSQL stores).
    ///   - clock: the time source for expiry.
    public init(database: PostgresDatabase, clock: any WallClock) {
        self.database = database
        self.clock = clock
    }

    /// Stores `record` under `record.state` for `ttl` seconds.
    ///
    /// - Throws: ``FlowStoreError`` `invalidTTL`, `duplicateState` (a live record has that state), or
    ///   `backendFailure`.
    public func put(_ record: FlowRecord, ttl: Double) async throws(FlowStoreError) {
        guard ttl.isFinite, ttl > 0 else {
            throw FlowStoreError(.invalidTTL, "expected a positive TTL in seconds, found \(ttl)")
        }
        let now = clock.now().timeIntervalSince1970
        let parameters: [PostgresValue] = [.text(record.state), .bytes(record.serialized()), .real(now + ttl)]
        let inserted: Int
        do {
            inserted = try await database.perform("put") { connection throws(StoreError) in
                try connection.transaction(operation: "put") { () throws(StoreError) in
                    try connection.run("DELETE FROM flow_states WHERE expires_at <= $1", [.real(now)], operation: "put")
                    return try connection.run(
                        """
                        INSERT INTO flow_states (state, record, expires_at) VALUES ($1, $2, $3)
                        ON CONFLICT (state) DO NOTHING
                        """, parameters, operation: "put")
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
    /// - Throws: ``FlowStoreError`` `invalidRecord` when the stored bytes are not a flow record,
    ///   `backendFailure`.
    public func take(state: String) async throws(FlowStoreError) -> FlowRecord? {
        let parameters: [PostgresValue] = [.text(state), .real(clock.now().timeIntervalSince1970)]
        let bytes: [UInt8]?
        do {
            bytes = try await database.perform("take") { connection throws(StoreError) in
                try connection.query(
                    "DELETE FROM flow_states WHERE state = $1 AND expires_at > $2 RETURNING record", parameters,
                    operation: "take"
                ).first?.bytes(0)
            }
        } catch {
            throw Self.flowError(error)
        }
        guard let bytes else { return nil }
        return try FlowRecord(serialized: bytes)
    }

    /// Records `state` as spent until `until`; `true` when this call spent it (first use, from any instance),
    /// `false` when it was already spent. Only the state's SHA-256 digest is stored, with one
    /// `INSERT … ON CONFLICT` (an expired entry is replaced; expired entries are purged in the same transaction).
    ///
    /// - Throws: ``FlowStoreError`` `invalidTTL` for an `until` not in the future, `backendFailure`.
    public func markSpent(state: String, until: Date) async throws(FlowStoreError) -> Bool {
        let now = clock.now().timeIntervalSince1970
        let expiry = until.timeIntervalSince1970
        guard expiry.isFinite, expiry > now else {
            throw FlowStoreError(.invalidTTL, "expected a spent-state expiry in the future, found one at or before now")
        }
        let parameters: [PostgresValue] = [.bytes(Digest.sha256(Array(state.utf8))), .real(expiry), .real(now)]
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
    /// - Throws: ``FlowStoreError`` `backendFailure`.
    public func checkHealth() async throws(FlowStoreError) {
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
