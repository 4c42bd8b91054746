package import AuthFlowJOSE
package import Foundation

/// A ``SessionStore`` in process memory, for tests and single-instance trials.
///
/// Sessions are keyed by the SHA-256 digest of their id, like the persistent stores. Expiry follows the
/// injected clock; expired sessions are purged as new ones arrive.
package actor InMemorySessionStore: SessionStore, StoreBackendNaming {
    /// `"memory"`.
    package nonisolated var backendName: String { "memory" }
    private let clock: any WallClock
    private var sessions: [[UInt8]: SessionRecord] = [:]
    private var createsSincePurge = 0

    /// Creates an empty store.
    ///
    /// - Parameter clock: the time source for expiry.
    package init(clock: any WallClock) {
        self.clock = clock
    }

    /// Stores a session under the digest of `id`.
    package func createSession(id: String, record: SessionRecord) throws(StoreError) {
        let operation = "createSession"
        try StoreValidation.checkSession(id: id, record, operation: operation)
        createsSincePurge += 1
        if createsSincePurge >= 1024 {
            createsSincePurge = 0
            let now = clock.now()
            sessions = sessions.filter { $0.value.expiresAt > now }
        }
        let digest = Digest.sha256(Array(id.utf8))
        guard sessions[digest] == nil else {
            throw StoreError(
                .duplicateSession, "expected a new session id, found one that is stored", operation: operation)
        }
        sessions[digest] = record
    }

    /// The live session under `id`, or `nil`.
    package func session(id: String) throws(StoreError) -> SessionRecord? {
        try StoreValidation.checkKey(id, "session id", operation: "session")
        guard let record = sessions[Digest.sha256(Array(id.utf8))], record.expiresAt > clock.now() else { return nil }
        return record
    }

    /// The user's live sessions, oldest first.
    package func sessions(userID: UserID) -> [StoredSession] {
        let now = clock.now()
        return sessions.filter { $0.value.userID == userID && $0.value.expiresAt > now }
            .map { StoredSession(digest: $0.key, record: $0.value) }
            .sorted {
                $0.record.createdAt != $1.record.createdAt
                    ? $0.record.createdAt < $1.record.createdAt : $0.digest.lexicographicallyPrecedes($1.digest)
            }
    }

    /// Sets the session's last use time when it is later than the stored one.
    package func touchSession(id: String, lastUsedAt: Date) throws(StoreError) {
        let operation = "touchSession"
        try StoreValidation.checkKey(id, "session id", operation: operation)
        try StoreValidation.checkDate(lastUsedAt, "last use time", operation: operation)
        let digest = Digest.sha256(Array(id.utf8))
        guard let record = sessions[digest], record.expiresAt > clock.now(), record.lastUsedAt < lastUsedAt else {
            return
        }
        sessions[digest] = record.used(at: lastUsedAt)
    }

    /// Deletes the session whose id has the SHA-256 `digest`.
    package func deleteSession(digest: [UInt8]) throws(StoreError) -> Bool {
        try StoreValidation.checkDigest(digest, operation: "deleteSession(digest:)")
        return sessions.removeValue(forKey: digest) != nil
    }

    /// Deletes every session of the user.
    package func deleteSessions(userID: UserID) -> Int {
        removeAll { $0.userID == userID }
    }

    /// Deletes every session signed in with the identity.
    private func deleteSessions(signedInWith identity: IdentityKey) -> Int {
        removeAll { $0.provider == identity.provider && $0.subject == identity.subject }
    }

    /// Deletes every session that began with the provider session `providerSessionID` (any subject of the
    /// provider when `identity.subject` is empty).
    package func deleteSessions(identity: IdentityKey, providerSessionID: String?) throws(StoreError) -> Int {
        guard let providerSessionID else { return deleteSessions(signedInWith: identity) }
        let operation = "deleteSessions(identity:providerSessionID:)"
        try StoreValidation.checkKey(identity.provider, "provider", operation: operation)
        try StoreValidation.checkKey(providerSessionID, "provider session id", operation: operation)
        return removeAll {
            $0.provider == identity.provider && $0.providerSessionID == providerSessionID
                && (identity.subject.isEmpty || $0.subject == identity.subject)
        }
    }

    /// Always succeeds: memory answers.
    package func checkHealth() {}

    private func removeAll(where matches: (SessionRecord) -> Bool) -> Int {
        let before = sessions.count
        sessions = sessions.filter { !matches($0.value) }
        return before - sessions.count
    }
}
