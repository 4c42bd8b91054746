public import Foundation

/// The set of spent sign-in states: what makes a sealed flow cookie single-use.
///
/// A sign-in start stores nothing (the flow record travels sealed in the browser's flow cookie); the
/// callback, once the cookie has opened and matched the callback's state, provider and browser, marks the
/// state spent. A second callback with the same state then finds it spent and is refused. Each operation maps
/// onto one command of a shared backend, so several server instances can share it: Redis
/// `SET prefix:digest 1 NX EXAT until`, SQL `INSERT … ON CONFLICT DO NOTHING` into a table keyed by the
/// digest with an `expires_at` column. Implementations store only a digest of the state (AuthFlow's own
/// stores keep a SHA-256 digest, `Digest.sha256`), never the state itself. The same set makes native sign-in
/// nonces and provider logout states single-use, each under a prefix of its own.
public protocol FlowStore: Sendable {
    /// Records `state` as spent until `until`; `true` when this call spent it (first use), `false` when it
    /// was already spent. Implementations store only a digest of the state. Redis `SET key 1 NX EXAT`,
    /// SQL `INSERT … ON CONFLICT DO NOTHING`.
    ///
    /// Of two concurrent calls with one state, at most one returns `true`.
    ///
    /// - Throws: ``FlowStoreError`` (capacity, backend failure).
    func markSpent(state: String, until: Date) async throws(FlowStoreError) -> Bool

    /// Checks that the store answers (for /healthz).
    ///
    /// - Throws: ``FlowStoreError`` `backend_failure` when it does not.
    func checkHealth() async throws(FlowStoreError)
}
