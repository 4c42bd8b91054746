package import AuthFlowJOSE
package import AuthFlowStores
package import Foundation

/// A `SessionStore` in Redis, shared by every instance using the same server and prefix.
///
/// Keys hold only SHA-256 digests: `<prefix>session:<digest of id>` holds the record (expiring with it), and
/// `<prefix>user:<digest of user id>` / `<prefix>identity:<digest of provider and subject>` are sets of the
/// user's and identity's session keys, for "sign out everywhere" (and `<prefix>provider-session:<digest>` sets
/// for back-channel logout by the provider's `sid`). Creation and the deletes are Lua scripts, so each is
/// atomic. The index sets hold only live sessions: creating a session first drops the members of its sets
/// whose session key has expired or was deleted, and deleting a session removes it from its sets, so a user
/// who signs in again and again does not grow them. Lookups check expiry against the injected clock too.
package struct RedisSessionStore: SessionStore, StoreBackendNaming {
    /// `"redis"`.
    package var backendName: String { "redis" }
    /// The client the store uses.
    package let client: RedisClient
    let clock: any WallClock

    /// Creates a store.
    ///
    /// - Parameters:
    ///   - client: the Redis connection pool (shareable with the other Redis stores).
    ///   - clock: the time source for expiry.
    package init(client: RedisClient, clock: any WallClock) {
        self.client = client
        self.clock = clock
    }

    static let createScript = """
        if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
        redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
        for i = 2, #KEYS do
            for _, member in ipairs(redis.call('SMEMBERS', KEYS[i])) do
                if redis.call('EXISTS', member) == 0 then redis.call('SREM', KEYS[i], member) end
            end
            redis.call('SADD', KEYS[i], KEYS[1])
            if redis.call('PTTL', KEYS[i]) < tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[i], ARGV[2]) end
        end
        return 1
        """

    static let deleteScript = """
        local removed = redis.call('DEL', KEYS[1])
        for i = 2, #KEYS do redis.call('SREM', KEYS[i], KEYS[1]) end
        return removed
        """

    static let deleteAllScript = """
        local removed = 0
        for _, key in ipairs(redis.call('SMEMBERS', KEYS[1])) do removed = removed + redis.call('DEL', key) end
        redis.call('DEL', KEYS[1])
        return removed
        """

    /// Stores a session under the digest of `id`.
    ///
    /// - Throws: `StoreError` `duplicateSession`, `invalidValue`.
    package func createSession(id: String, record: SessionRecord) async throws(StoreError) {
        let operation = "createSession"
        try StoreValidation.checkSession(id: id, record, operation: operation)
        let lifetime = record.expiresAt.timeIntervalSince(clock.now())
        guard lifetime > 0 else {
            throw StoreError(
                .invalidValue, "expected a session expiry in the future, found one in the past", operation: operation)
        }
        let milliseconds = String(Int64((lifetime * 1000).rounded(.up)))
        let keys = [sessionKey(id)] + indexKeys(record)
        let reply = try await client.command(
            [Array("EVAL".utf8), Array(Self.createScript.utf8), Array(String(keys.count).utf8)] + keys
                + [RedisSessionRecord.encode(record), Array(milliseconds.utf8)], operation: operation)
        guard reply.integer == 1 else {
            throw StoreError(
                .duplicateSession, "expected a new session id, found one that is stored", operation: operation)
        }
    }

    /// The live session under `id`, or `nil`.
    ///
    /// - Throws: `StoreError`.
    package func session(id: String) async throws(StoreError) -> SessionRecord? {
        let operation = "session"
        try StoreValidation.checkKey(id, "session id", operation: operation)
        let reply = try await client.command([Array("GET".utf8), sessionKey(id)], operation: operation)
        guard let bytes = reply.bytes else { return nil }
        let record = try RedisSessionRecord.decode(bytes, operation: operation)
        return record.expiresAt > clock.now() ? record : nil
    }

    /// Deletes the session whose id has the SHA-256 `digest`, and removes it from its sets.
    ///
    /// - Throws: `StoreError` `invalidValue` for a digest that is not 32 bytes.
    @discardableResult
    package func deleteSession(digest: [UInt8]) async throws(StoreError) -> Bool {
        let operation = "deleteSession(digest:)"
        try StoreValidation.checkDigest(digest, operation: operation)
        return try await delete(key: client.key("session", digest: digest), operation: operation)
    }

    /// The user's live sessions, oldest first: the members of the user's set, read in one `MGET`.
    ///
    /// - Throws: `StoreError`.
    package func sessions(userID: UserID) async throws(StoreError) -> [StoredSession] {
        let operation = "sessions(userID:)"
        let members =
            try await client.command([Array("SMEMBERS".utf8), userKey(userID)], operation: operation).array ?? []
        let keys = members.compactMap(\.bytes)
        guard !keys.isEmpty else { return [] }
        let values = try await client.command([Array("MGET".utf8)] + keys, operation: operation).array ?? []
        let now = clock.now()
        var listed: [StoredSession] = []
        for (key, value) in zip(keys, values) {
            // A member whose session expired or was deleted, or does not decode, is no live session.
            guard let bytes = value.bytes, let record = try? RedisSessionRecord.decode(bytes, operation: operation),
                record.userID == userID, record.expiresAt > now,
                let digest = Self.digest(ofSessionKey: key)
            else { continue }
            listed.append(StoredSession(digest: digest, record: record))
        }
        return listed.sorted {
            $0.record.createdAt != $1.record.createdAt
                ? $0.record.createdAt < $1.record.createdAt : $0.digest.lexicographicallyPrecedes($1.digest)
        }
    }

    /// Sets the session's last use time when it is later than the stored one: the record is read, and written
    /// back only while its key exists (`SET … XX KEEPTTL`), so a session deleted meanwhile is not brought back.
    ///
    /// - Throws: `StoreError` `invalidValue`.
    package func touchSession(id: String, lastUsedAt: Date) async throws(StoreError) {
        let operation = "touchSession"
        try StoreValidation.checkKey(id, "session id", operation: operation)
        try StoreValidation.checkDate(lastUsedAt, "last use time", operation: operation)
        let key = sessionKey(id)
        guard let bytes = try await client.command([Array("GET".utf8), key], operation: operation).bytes else { return }
        let record = try RedisSessionRecord.decode(bytes, operation: operation)
        guard record.expiresAt > clock.now(), record.lastUsedAt < lastUsedAt else { return }
        _ = try await client.command(
            [
                Array("SET".utf8), key, RedisSessionRecord.encode(record.used(at: lastUsedAt)), Array("XX".utf8),
                Array("KEEPTTL".utf8),
            ], operation: operation)
    }

    private func delete(key: [UInt8], operation: String) async throws(StoreError) -> Bool {
        let stored = try await client.command([Array("GET".utf8), key], operation: operation).bytes
        // A record that does not decode is deleted all the same; its sets are pruned at their next write.
        let record = stored.flatMap { try? RedisSessionRecord.decode($0, operation: operation) }
        let keys = [key] + (record.map(indexKeys) ?? [])
        let reply = try await client.command(
            [Array("EVAL".utf8), Array(Self.deleteScript.utf8), Array(String(keys.count).utf8)] + keys,
            operation: operation)
        return reply.integer ?? 0 > 0
    }

    /// The digest a session key (`<prefix>session:<hex>`) ends with.
    static func digest(ofSessionKey key: [UInt8]) -> [UInt8]? {
        guard let colon = key.lastIndex(of: UInt8(ascii: ":")) else { return nil }
        let hex = key[(colon + 1)...]
        guard hex.count == 64 else { return nil }
        var digest: [UInt8] = []
        digest.reserveCapacity(32)
        var high: UInt8?
        for byte in hex {
            let nibble: UInt8
            switch byte {
            case 0x30...0x39: nibble = byte - 0x30
            case 0x61...0x66: nibble = byte - 0x61 + 10
            case 0x41...0x46: nibble = byte - 0x41 + 10
            default: return nil
            }
            if let first = high {
                digest.append(first << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        return digest
    }

    /// Deletes every session of the user.
    ///
    /// - Throws: `StoreError`.
    @discardableResult
    package func deleteSessions(userID: UserID) async throws(StoreError) -> Int {
        try await deleteAll(userKey(userID), operation: "deleteSessions(userID:)")
    }

    /// Deletes every session signed in with the identity.
    ///
    /// - Throws: `StoreError`.
    private func deleteSessions(signedInWith identity: IdentityKey) async throws(StoreError) -> Int {
        try await deleteAll(identityKey(identity), operation: "deleteSessions(identity:)")
    }

    /// Deletes every session that began with the provider session `providerSessionID` of the identity (any
    /// subject of the provider when `identity.subject` is empty).
    ///
    /// - Throws: `StoreError` `invalidValue` for an empty provider or provider session id.
    @discardableResult
    package func deleteSessions(identity: IdentityKey, providerSessionID: String?) async throws(StoreError) -> Int {
        guard let providerSessionID else { return try await deleteSessions(signedInWith: identity) }
        let operation = "deleteSessions(identity:providerSessionID:)"
        try StoreValidation.checkKey(identity.provider, "provider", operation: operation)
        try StoreValidation.checkKey(providerSessionID, "provider session id", operation: operation)
        return try await deleteAll(
            providerSessionKey(provider: identity.provider, subject: identity.subject, sid: providerSessionID),
            operation: operation)
    }

    /// Checks that Redis answers.
    ///
    /// - Throws: `StoreError`.
    package func checkHealth() async throws(StoreError) {
        try await client.checkHealth()
    }

    private func deleteAll(_ setKey: [UInt8], operation: String) async throws(StoreError) -> Int {
        let reply = try await client.command(
            [Array("EVAL".utf8), Array(Self.deleteAllScript.utf8), Array("1".utf8), setKey], operation: operation)
        return Int(reply.integer ?? 0)
    }

    /// The sets that list a session: its user's, its identity's and, with a provider session id, that one's.
    private func indexKeys(_ record: SessionRecord) -> [[UInt8]] {
        var keys = [userKey(record.userID), identityKey(record.identity)]
        if let sid = record.providerSessionID {
            keys.append(providerSessionKey(provider: record.provider, subject: record.subject, sid: sid))
            keys.append(providerSessionKey(provider: record.provider, subject: "", sid: sid))
        }
        return keys
    }

    private func sessionKey(_ id: String) -> [UInt8] { client.key("session", digest: Digest.sha256(Array(id.utf8))) }

    private func userKey(_ user: UserID) -> [UInt8] {
        client.key("user", digest: Digest.sha256(Array(user.rawValue.utf8)))
    }

    /// The set of sessions begun with provider session `sid` of `subject` (every subject when empty).
    private func providerSessionKey(provider: String, subject: String, sid: String) -> [UInt8] {
        let text = "\(provider.utf8.count):\(provider)|\(subject.utf8.count):\(subject)|\(sid)"
        return client.key("provider-session", digest: Digest.sha256(Array(text.utf8)))
    }

    private func identityKey(_ identity: IdentityKey) -> [UInt8] {
        let text = "\(identity.provider.utf8.count):\(identity.provider)|\(identity.subject)"
        return client.key("identity", digest: Digest.sha256(Array(text.utf8)))
    }
}
