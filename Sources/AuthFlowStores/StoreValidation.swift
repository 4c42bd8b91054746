package import Foundation

/// Argument checks and normalizations every store implementation applies the same way, so a value the
/// in-memory store refuses is refused by SQLite (and later Redis or PostgreSQL) too.
///
/// Every check throws ``StoreError`` `invalidValue` naming the argument, never echoing its value.
package enum StoreValidation {
    /// The longest key accepted (provider, subject, user id, session id, state, notification id), in UTF-8 bytes.
    package static let maximumKeyBytes = 1024
    /// The longest profile field accepted (email, name, scope), in UTF-8 bytes.
    package static let maximumFieldBytes = 4096
    /// The longest token accepted, in UTF-8 bytes.
    package static let maximumTokenBytes = 64 * 1024

    /// Checks a key: not empty and at most ``maximumKeyBytes``.
    ///
    /// - Throws: ``StoreError`` `invalidValue`.
    package static func checkKey(_ value: String, _ name: String, operation: String) throws(StoreError) {
        let count = value.utf8.count
        guard count > 0 else {
            throw StoreError(.invalidValue, "expected a non-empty \(name), found an empty one", operation: operation)
        }
        guard count <= maximumKeyBytes else {
            throw StoreError(
                .invalidValue, "expected a \(name) of at most \(maximumKeyBytes) bytes, found \(count) bytes",
                operation: operation)
        }
    }

    /// Checks a page size: at least 1.
    ///
    /// - Throws: ``StoreError`` `invalidValue`.
    package static func checkLimit(_ limit: Int, operation: String) throws(StoreError) {
        guard limit >= 1 else {
            throw StoreError(.invalidValue, "expected a limit of at least 1, found \(limit)", operation: operation)
        }
    }

    /// Checks an identity key's provider and subject.
    ///
    /// - Throws: ``StoreError`` `invalidValue`.
    package static func checkIdentity(_ key: IdentityKey, operation: String) throws(StoreError) {
        try checkKey(key.provider, "provider", operation: operation)
        try checkKey(key.subject, "subject", operation: operation)
    }

    /// Checks an optional field's length against `limit` bytes.
    ///
    /// - Throws: ``StoreError`` `invalidValue`.
    package static func checkField(
        _ value: String?, _ name: String, limit: Int = maximumFieldBytes, operation: String
    ) throws(StoreError) {
        guard let count = value?.utf8.count, count > limit else { return }
        throw StoreError(
            .invalidValue, "expected a \(name) of at most \(limit) bytes, found \(count) bytes", operation: operation)
    }

    /// Checks that a provider name is not empty and within the field limit.
    ///
    /// - Throws: `invalidValue`.
    package static func checkProvider(_ provider: String, operation: String) throws(StoreError) {
        guard !provider.isEmpty else {
            throw StoreError(.invalidValue, "expected a provider name, found an empty one", operation: operation)
        }
        try checkField(provider, "provider", operation: operation)
    }

    /// Checks that a date is a finite point in time.
    ///
    /// - Throws: ``StoreError`` `invalidValue`.
    package static func checkDate(_ date: Date, _ name: String, operation: String) throws(StoreError) {
        guard date.timeIntervalSince1970.isFinite else {
            throw StoreError(
                .invalidValue, "expected a finite \(name), found \(date.timeIntervalSince1970)", operation: operation)
        }
    }

    /// Checks a new identity's profile fields.
    ///
    /// - Throws: ``StoreError`` `invalidValue`.
    package static func checkProfile(_ profile: IdentityProfile, operation: String) throws(StoreError) {
        try checkField(profile.email, "email", operation: operation)
        try checkField(profile.name, "name", operation: operation)
    }

    /// Checks a profile update's fields.
    ///
    /// - Throws: ``StoreError`` `invalidValue`.
    package static func checkUpdate(_ update: IdentityProfileUpdate, operation: String) throws(StoreError) {
        try checkField(update.email, "email", operation: operation)
        try checkField(update.name, "name", operation: operation)
    }

    /// Checks tokens to be stored.
    ///
    /// - Throws: ``StoreError`` `invalidValue`.
    package static func checkTokens(_ tokens: StoredTokens, operation: String) throws(StoreError) {
        try checkField(tokens.accessToken, "access token", limit: maximumTokenBytes, operation: operation)
        try checkField(tokens.refreshToken, "refresh token", limit: maximumTokenBytes, operation: operation)
        try checkField(tokens.scope, "scope", operation: operation)
        try checkField(tokens.clientID, "client id", operation: operation)
        if let expiry = tokens.accessTokenExpiresAt { try checkDate(expiry, "token expiry", operation: operation) }
    }

    /// Checks a refresh lease's identity, holder id and duration (positive and finite seconds).
    ///
    /// - Throws: ``StoreError`` `invalidValue`.
    package static func checkLease(
        _ identity: IdentityKey, holder: String, duration: Double = 1, operation: String
    ) throws(StoreError) {
        try checkIdentity(identity, operation: operation)
        try checkKey(holder, "lease holder", operation: operation)
        guard duration.isFinite, duration > 0 else {
            throw StoreError(
                .invalidValue, "expected a lease duration of a positive, finite number of seconds, found \(duration)",
                operation: operation)
        }
    }

    /// Checks a pending profile: key and provider, name lengths, and an expiry after `now`.
    ///
    /// - Throws: ``StoreError`` `invalidValue`.
    package static func checkPendingProfile(_ profile: PendingProfile, now: Date, operation: String) throws(StoreError)
    {
        try checkKey(profile.key, "pending profile key", operation: operation)
        try checkKey(profile.provider, "provider", operation: operation)
        try checkField(profile.firstName, "first name", operation: operation)
        try checkField(profile.lastName, "last name", operation: operation)
        try checkDate(profile.expiresAt, "expiry", operation: operation)
        guard profile.expiresAt > now else {
            throw StoreError(
                .invalidValue, "expected an expiry in the future, found one in the past", operation: operation)
        }
    }

    /// Checks a session record: user id, provider, subject, and an expiry after its creation.
    ///
    /// - Throws: ``StoreError`` `invalidValue`.
    package static func checkSession(id: String, _ record: SessionRecord, operation: String) throws(StoreError) {
        try checkKey(id, "session id", operation: operation)
        try checkKey(record.userID.rawValue, "user id", operation: operation)
        try checkKey(record.provider, "provider", operation: operation)
        try checkKey(record.subject, "subject", operation: operation)
        try checkDate(record.createdAt, "creation time", operation: operation)
        try checkDate(record.expiresAt, "expiry", operation: operation)
        if let sid = record.providerSessionID { try checkKey(sid, "provider session id", operation: operation) }
        try checkDate(record.lastUsedAt, "last use time", operation: operation)
        try checkNames(record.groups, "groups", operation: operation)
        try checkNames(record.roles, "roles", operation: operation)
        if let tenant = record.tenant, tenant.isEmpty || tenant.utf8.count > SessionRecord.maximumGroupBytes {
            throw StoreError(
                .invalidValue,
                "expected a tenant of 1 to \(SessionRecord.maximumGroupBytes) bytes, found \(tenant.utf8.count)",
                operation: operation)
        }
        if let agent = record.agent, agent.isEmpty || agent.utf8.count > SessionRecord.maximumAgentBytes {
            throw StoreError(
                .invalidValue,
                "expected an agent summary of 1 to \(SessionRecord.maximumAgentBytes) bytes, found \(agent.utf8.count)",
                operation: operation)
        }
        guard record.expiresAt > record.createdAt else {
            throw StoreError(
                .invalidValue, "expected a session expiry after its creation time, found one at or before it",
                operation: operation)
        }
    }

    /// Checks a session's groups or roles (`kind`): at most ``SessionRecord/maximumGroups`` non-empty names of at
    /// most ``SessionRecord/maximumGroupBytes`` bytes.
    static func checkNames(_ names: [String], _ kind: String, operation: String) throws(StoreError) {
        guard names.count <= SessionRecord.maximumGroups,
            names.allSatisfy({ !$0.isEmpty && $0.utf8.count <= SessionRecord.maximumGroupBytes })
        else {
            throw StoreError(
                .invalidValue,
                "expected at most \(SessionRecord.maximumGroups) non-empty \(kind) of at most "
                    + "\(SessionRecord.maximumGroupBytes) bytes, found \(names.count) \(kind) or a longer one",
                operation: operation)
        }
    }

    /// Checks a session digest (SHA-256, 32 bytes).
    package static func checkDigest(_ digest: [UInt8], operation: String) throws(StoreError) {
        guard digest.count == 32 else {
            throw StoreError(
                .invalidValue, "expected a 32-byte session digest, found \(digest.count) bytes", operation: operation)
        }
    }

    /// The form in which emails are compared: lowercased.
    package static func normalizedEmail(_ email: String) -> String { email.lowercased() }
}
