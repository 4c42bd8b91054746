import AuthFlowJOSE
public import Foundation

/// Server-side sessions of `authflow serve`, keyed by the session cookie's random id.
///
/// The id is a bearer secret: implementations store only its SHA-256 digest, so a leaked database does not
/// yield usable cookies. Every operation maps onto one SQL statement (in Redis, a command or script, and a
/// read before listing or touching): create = `INSERT`, lookup = `SELECT … WHERE id_digest = ? AND
/// expires_at > now`, list = `SELECT … WHERE user_id = ?`, touch = `UPDATE … SET last_used_at`, deletes =
/// `DELETE`. Expired sessions are purged opportunistically. Expiry follows the implementation's injected clock.
///
/// Every method throws ``StoreError``; `backendFailure`, `busy` and `corruptDatabase` can come from any of
/// them.
public protocol SessionStore: Sendable {
    /// Stores a session under `id` (the cookie value; only its digest is kept).
    ///
    /// - Throws: `duplicateSession` when a session with that id exists, `invalidValue` for an empty id or
    ///   `expiresAt` not after `createdAt`.
    func createSession(id: String, record: SessionRecord) async throws(StoreError)

    /// The live session stored under `id`, or `nil` when unknown, deleted or expired.
    func session(id: String) async throws(StoreError) -> SessionRecord?

    /// The user's live sessions (unexpired), oldest first.
    func sessions(userID: UserID) async throws(StoreError) -> [StoredSession]

    /// Sets the session's ``SessionRecord/lastUsedAt`` to `lastUsedAt` when it is later than the stored one;
    /// nothing for an unknown or expired session (a deleted session is never written back).
    ///
    /// - Throws: `invalidValue` for an empty id or a non-finite date.
    func touchSession(id: String, lastUsedAt: Date) async throws(StoreError)

    /// Deletes the session whose id has the SHA-256 `digest` (as ``sessions(userID:)`` lists it); `true` when one
    /// was stored.
    ///
    /// - Throws: `invalidValue` for a digest that is not 32 bytes.
    @discardableResult
    func deleteSession(digest: [UInt8]) async throws(StoreError) -> Bool

    /// Deletes every session of the user (account deletion, "sign out everywhere"); returns how many.
    @discardableResult
    func deleteSessions(userID: UserID) async throws(StoreError) -> Int

    /// Deletes sessions of the identity and returns how many: with a `nil` `providerSessionID`, every session
    /// signed in with it (unlink, Apple `consent-revoked`); else every session that began with the provider
    /// session `providerSessionID` (the id_token's `sid`), where an `identity` with an empty subject matches every
    /// subject of its provider (an OpenID Connect logout token may carry `sid` without `sub`).
    ///
    /// - Throws: `invalidValue` for an empty provider or provider session id (when one is given).
    @discardableResult
    func deleteSessions(identity: IdentityKey, providerSessionID: String?) async throws(StoreError) -> Int

    /// Checks that the store answers (for `GET /healthz`).
    func checkHealth() async throws(StoreError)
}

extension SessionStore {
    /// Deletes the session stored under `id` (as ``deleteSession(digest:)`` with its SHA-256 digest); `true` when
    /// one was stored (expired or not).
    ///
    /// - Throws: `StoreError` `invalidValue` for an empty id.
    @discardableResult
    package func deleteSession(id: String) async throws(StoreError) -> Bool {
        try StoreValidation.checkKey(id, "session id", operation: "deleteSession")
        return try await deleteSession(digest: Digest.sha256(Array(id.utf8)))
    }

    /// Deletes every session signed in with the identity (unlink, Apple `consent-revoked`); returns how many.
    @discardableResult
    package func deleteSessions(identity: IdentityKey) async throws(StoreError) -> Int {
        try await deleteSessions(identity: identity, providerSessionID: nil)
    }

    /// Deletes every record of `user` (its sessions and the ``SessionKind/rotated`` records of its bearer refresh
    /// chains) and returns how many live sessions ended, as ``sessions(userID:)`` listed them just before.
    package func endSessions(of user: UserID) async throws(StoreError) -> Int {
        let live = try await sessions(userID: user).filter(\.record.kind.isSession).count
        try await deleteSessions(userID: user)
        return live
    }
}
