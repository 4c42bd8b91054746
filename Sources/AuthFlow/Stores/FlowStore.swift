/// Short-lived storage of ``FlowRecord``s between the redirect to the provider and the callback.
///
/// Each operation maps onto one command of a shared backend, so several server instances can share it:
/// `put` is Redis `SET state record EX ttl NX` / one SQL `INSERT` with an `expires_at` column; `take` is
/// Redis `GETDEL` / SQL `DELETE … WHERE state = ? AND expires_at > now RETURNING …`. `take` must be
/// atomic: of two concurrent takes of one state, at most one gets the record.
public protocol FlowStore: Sendable {
    /// Stores `record` under `record.state` for `ttl` seconds.
    ///
    /// - Throws: ``FlowStoreError`` (duplicate state, capacity, backend failure).
    func put(_ record: FlowRecord, ttl: Double) async throws(FlowStoreError)

    /// Removes and returns the live record stored under `state`, or `nil` when there is none (never
    /// stored, already taken, or expired).
    ///
    /// - Throws: ``FlowStoreError`` on backend failure.
    func take(state: String) async throws(FlowStoreError) -> FlowRecord?
}
