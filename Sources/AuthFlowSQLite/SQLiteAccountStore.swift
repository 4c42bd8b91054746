public import AuthFlow
public import AuthFlowJOSE
import Foundation

/// An `AccountStore` in a ``SQLiteDatabase`` file.
///
/// Each operation is one statement or one transaction (`BEGIN IMMEDIATE` for read-then-write operations, so
/// concurrent writers from other connections or processes wait rather than interleave). Provider tokens are
/// encrypted with a `TokenCipher` whose associated data binds each value to its kind and identity, so a
/// ciphertext copied to another row does not decrypt. Timestamps and expiry follow the injected clock.
public struct SQLiteAccountStore: AccountStore {
    /// The database the store reads and writes.
    public let database: SQLiteDatabase
    let sealing: TokenSealing
    let clock: any WallClock
    /// The most live pending profiles kept at once.
    let pendingCapacity: Int

    /// Creates a store over `database`.
    ///
    /// - Parameters:
    ///   - database: an open database (shareable with ``SQLiteSessionStore`` and ``SQLiteFlowStore``).
    ///   - cipher: encrypts tokens at rest; build it from `server.secret`.
    ///   - clock: the time source for timestamps and expiry.
    ///   - pendingCapacity: the most live pending profiles (Apple's first-login names) kept at once.
    public init(database: SQLiteDatabase, cipher: TokenCipher, clock: any WallClock, pendingCapacity: Int = 100_000) {
        self.database = database
        self.sealing = TokenSealing(cipher: cipher)
        self.clock = clock
        self.pendingCapacity = max(1, pendingCapacity)
    }

    /// The stored identity, or `nil`.
    ///
    /// - Throws: `StoreError`.
    public func identity(_ key: IdentityKey) async throws(StoreError) -> LinkedIdentity? {
        let operation = "identity"
        try StoreValidation.checkIdentity(key, operation: operation)
        return try await database.perform(operation) { connection throws(StoreError) in
            try Self.identity(key, in: connection, operation: operation)
        }
    }

    /// The user with its identities, or `nil`.
    ///
    /// - Throws: `StoreError`.
    public func user(_ id: UserID) async throws(StoreError) -> UserAccount? {
        let operation = "user"
        return try await database.perform(operation) { connection throws(StoreError) in
            try connection.transaction(immediate: false, operation: operation) { () throws(StoreError) in
                try Self.account(id, in: connection, operation: operation)
            }
        }
    }

    /// Users with an enabled identity whose verified email matches (case-insensitively), oldest first.
    ///
    /// - Throws: `StoreError`.
    public func users(withVerifiedEmail email: String) async throws(StoreError) -> [UserAccount] {
        let operation = "users(withVerifiedEmail:)"
        try StoreValidation.checkField(email, "email", operation: operation)
        let normalized = StoreValidation.normalizedEmail(email)
        return try await database.perform(operation) { connection throws(StoreError) in
            try connection.transaction(immediate: false, operation: operation) { () throws(StoreError) in
                let rows = try connection.query(
                    """
                    SELECT id FROM users WHERE id IN (
                        SELECT user_id FROM identities WHERE email_normalized = ? AND email_verified = 1 AND disabled = 0
                    ) ORDER BY created_at, id
                    """, [.text(normalized)], operation: operation)
                var accounts: [UserAccount] = []
                for row in rows {
                    let id = UserID(rawValue: try row.text(0))
                    if let account = try Self.account(id, in: connection, operation: operation) {
                        accounts.append(account)
                    }
                }
                return accounts
            }
        }
    }

    /// Creates the user with its first identity, in one transaction.
    ///
    /// - Throws: `StoreError` `duplicateUser`, `identityAlreadyLinked`, `invalidValue`.
    public func createUser(_ id: UserID, identity: IdentityKey, profile: IdentityProfile) async throws(StoreError)
        -> UserAccount
    {
        let operation = "createUser"
        try StoreValidation.checkKey(id.rawValue, "user id", operation: operation)
        try StoreValidation.checkIdentity(identity, operation: operation)
        try StoreValidation.checkProfile(profile, operation: operation)
        let now = clock.now()
        return try await database.perform(operation) { connection throws(StoreError) in
            try connection.transaction(immediate: true, operation: operation) { () throws(StoreError) in
                let existing = try connection.query(
                    "SELECT 1 FROM users WHERE id = ?", [.text(id.rawValue)], operation: operation)
                guard existing.isEmpty else {
                    throw StoreError(
                        .duplicateUser, "expected a new user id, found one that exists", operation: operation)
                }
                guard try Self.identity(identity, in: connection, operation: operation) == nil else {
                    throw StoreError(
                        .identityAlreadyLinked,
                        "expected an identity not linked to any user, found one linked to a user", operation: operation)
                }
                try connection.run(
                    "INSERT INTO users (id, created_at) VALUES (?, ?)",
                    [.text(id.rawValue), .real(now.timeIntervalSince1970)], operation: operation)
                let linked = LinkedIdentity(user: id, key: identity, profile: profile, at: now)
                try Self.insert(linked, in: connection, operation: operation)
                return UserAccount(id: id, createdAt: now, identities: [linked])
            }
        }
    }

    /// Links the identity to an existing user; an identity already linked to that user is returned unchanged.
    ///
    /// - Throws: `StoreError` `identityAlreadyLinked`, `userNotFound`, `invalidValue`.
    public func linkIdentity(_ identity: IdentityKey, profile: IdentityProfile, to user: UserID)
        async throws(StoreError)
        -> LinkedIdentity
    {
        let operation = "linkIdentity"
        try StoreValidation.checkIdentity(identity, operation: operation)
        try StoreValidation.checkProfile(profile, operation: operation)
        let now = clock.now()
        return try await database.perform(operation) { connection throws(StoreError) in
            try connection.transaction(immediate: true, operation: operation) { () throws(StoreError) in
                if let existing = try Self.identity(identity, in: connection, operation: operation) {
                    guard existing.userID == user else {
                        throw StoreError(
                            .identityAlreadyLinked,
                            "expected an identity not linked to another user, found one that is", operation: operation)
                    }
                    return existing
                }
                let users = try connection.query(
                    "SELECT 1 FROM users WHERE id = ?", [.text(user.rawValue)], operation: operation)
                guard !users.isEmpty else { throw Self.userNotFound(operation) }
                let linked = LinkedIdentity(user: user, key: identity, profile: profile, at: now)
                try Self.insert(linked, in: connection, operation: operation)
                return linked
            }
        }
    }

    /// Removes every identity of `provider` from the user with their tokens, refusing to remove the last one.
    /// Tokens that no longer decrypt (the secret changed) are reported as `nil`.
    ///
    /// - Throws: `StoreError` `userNotFound`, `identityNotFound`, `lastIdentity`.
    public func unlinkProvider(_ provider: String, from user: UserID) async throws(StoreError) -> [RemovedIdentity] {
        let operation = "unlinkProvider"
        try StoreValidation.checkKey(provider, "provider", operation: operation)
        let sealing = sealing
        return try await database.perform(operation) { connection throws(StoreError) in
            try connection.transaction(immediate: true, operation: operation) { () throws(StoreError) in
                guard let account = try Self.account(user, in: connection, operation: operation) else {
                    throw Self.userNotFound(operation)
                }
                let removing = account.identities.filter { $0.provider == provider }
                guard !removing.isEmpty else {
                    throw StoreError(
                        .identityNotFound, "expected the user to have an identity of provider \(provider), found none",
                        operation: operation)
                }
                guard removing.count < account.identities.count else {
                    throw StoreError(
                        .lastIdentity,
                        "expected the user to keep at least one identity, found only identities of provider \(provider)",
                        operation: operation)
                }
                var removed: [RemovedIdentity] = []
                for identity in removing {
                    let tokens = try Self.removeTokens(
                        identity.key, sealing: sealing, in: connection, operation: operation)
                    try connection.run(
                        "DELETE FROM identities WHERE provider = ? AND subject = ?",
                        [.text(identity.provider), .text(identity.subject)], operation: operation)
                    removed.append(RemovedIdentity(identity: identity, tokens: tokens))
                }
                return removed
            }
        }
    }

    /// Deletes the user, its identities and their tokens in one transaction. Tokens that no longer decrypt are
    /// reported as `nil`.
    ///
    /// - Throws: `StoreError` `userNotFound`.
    public func deleteUser(_ id: UserID) async throws(StoreError) -> [RemovedIdentity] {
        let operation = "deleteUser"
        let sealing = sealing
        return try await database.perform(operation) { connection throws(StoreError) in
            try connection.transaction(immediate: true, operation: operation) { () throws(StoreError) in
                guard let account = try Self.account(id, in: connection, operation: operation) else {
                    throw Self.userNotFound(operation)
                }
                var removed: [RemovedIdentity] = []
                for identity in account.identities {
                    let tokens = try Self.removeTokens(
                        identity.key, sealing: sealing, in: connection, operation: operation)
                    removed.append(RemovedIdentity(identity: identity, tokens: tokens))
                }
                try connection.run(
                    "DELETE FROM identities WHERE user_id = ?", [.text(id.rawValue)], operation: operation)
                try connection.run("DELETE FROM users WHERE id = ?", [.text(id.rawValue)], operation: operation)
                return removed
            }
        }
    }

    /// Disables or enables sign-in with the identity.
    ///
    /// - Throws: `StoreError` `identityNotFound`.
    public func setIdentityDisabled(_ disabled: Bool, for identity: IdentityKey) async throws(StoreError)
        -> LinkedIdentity
    {
        let operation = "setIdentityDisabled"
        try StoreValidation.checkIdentity(identity, operation: operation)
        let now = clock.now()
        return try await modifyIdentity(identity, operation: operation) { $0.settingDisabled(disabled, at: now) }
    }

    /// Updates the identity's profile fields; `nil` keeps a stored value.
    ///
    /// - Throws: `StoreError` `identityNotFound`, `invalidValue`.
    public func updateIdentityProfile(_ update: IdentityProfileUpdate, for identity: IdentityKey)
        async throws(StoreError)
        -> LinkedIdentity
    {
        let operation = "updateIdentityProfile"
        try StoreValidation.checkIdentity(identity, operation: operation)
        try StoreValidation.checkUpdate(update, operation: operation)
        let now = clock.now()
        return try await modifyIdentity(identity, operation: operation) { $0.applying(update, at: now) }
    }

    /// Reads the schema objects, so a missing or damaged file is noticed.
    ///
    /// - Throws: `StoreError`.
    public func checkHealth() async throws(StoreError) {
        let operation = "checkHealth"
        _ = try await database.perform(operation) { connection throws(StoreError) in
            try connection.query("SELECT count(*) FROM sqlite_schema", operation: operation).count
        }
    }

    private func modifyIdentity(
        _ identity: IdentityKey, operation: String,
        _ change: @escaping @Sendable (LinkedIdentity) -> LinkedIdentity
    ) async throws(StoreError) -> LinkedIdentity {
        try await database.perform(operation) { connection throws(StoreError) in
            try connection.transaction(immediate: true, operation: operation) { () throws(StoreError) in
                guard let stored = try Self.identity(identity, in: connection, operation: operation) else {
                    throw Self.identityNotFound(operation)
                }
                let updated = change(stored)
                if updated != stored { try Self.update(updated, in: connection, operation: operation) }
                return updated
            }
        }
    }

    static func userNotFound(_ operation: String) -> StoreError {
        StoreError(.userNotFound, "expected an existing user, found none with that id", operation: operation)
    }

    static func identityNotFound(_ operation: String) -> StoreError {
        StoreError(
            .identityNotFound, "expected a linked identity, found none for that provider and subject",
            operation: operation)
    }
}
