/// An ``AccountStore`` whose every operation is the shared SQL layer's (``SQLAccountStore``); the SQLite and
/// PostgreSQL account stores conform and only say which database to run on.
///
/// Other stores conform to ``AccountStore`` directly: a ``SQLAccountStore`` is made only by AuthFlow's
/// store modules.
public protocol SQLBackedAccountStore: AccountStore {
    /// The shared SQL layer the store runs on.
    var sql: SQLAccountStore { get }
}

extension SQLBackedAccountStore {
    /// The stored identity, or `nil`.
    ///
    /// - Throws: `StoreError` `invalidValue`.
    public func identity(_ key: IdentityKey) async throws(StoreError) -> LinkedIdentity? {
        try await sql.identity(key)
    }

    /// The user with its identities, or `nil`.
    ///
    /// - Throws: `StoreError`.
    public func user(_ id: UserID) async throws(StoreError) -> UserAccount? { try await sql.user(id) }

    /// Users with an enabled identity whose verified email matches (case-insensitively), oldest first.
    ///
    /// - Throws: `StoreError`.
    public func users(withVerifiedEmail email: String) async throws(StoreError) -> [UserAccount] {
        try await sql.users(withVerifiedEmail: email)
    }

    /// Up to `limit` users whose id sorts after `cursor`, in the database's order of ids.
    ///
    /// - Throws: `StoreError` `invalidValue`.
    public func users(after cursor: UserID?, limit: Int) async throws(StoreError) -> [UserAccount] {
        try await sql.users(after: cursor, limit: limit)
    }

    /// Creates the user with its first identity, in one transaction; the primary keys decide races.
    ///
    /// - Throws: `StoreError` `duplicateUser`, `identityAlreadyLinked`, `invalidValue`.
    public func createUser(_ id: UserID, identity: IdentityKey, profile: IdentityProfile) async throws(StoreError)
        -> UserAccount
    {
        try await sql.createUser(id, identity: identity, profile: profile)
    }

    /// Links the identity to an existing user; an identity already linked to that user is returned unchanged.
    ///
    /// - Throws: `StoreError` `identityAlreadyLinked`, `userNotFound`, `invalidValue`.
    public func linkIdentity(_ identity: IdentityKey, profile: IdentityProfile, to user: UserID)
        async throws(StoreError) -> LinkedIdentity
    {
        try await sql.linkIdentity(identity, profile: profile, to: user)
    }

    /// Creates the user with its first identity and stores its tokens, in one transaction.
    ///
    /// - Throws: `StoreError` `duplicateUser`, `identityAlreadyLinked`, `invalidValue`.
    public func createUser(_ id: UserID, identity: IdentityKey, profile: IdentityProfile, tokens: StoredTokens)
        async throws(StoreError) -> UserAccount
    {
        try await sql.createUser(id, identity: identity, profile: profile, tokens: tokens)
    }

    /// Links the identity to an existing user and stores its tokens, in one transaction.
    ///
    /// - Throws: `StoreError` `identityAlreadyLinked`, `userNotFound`, `invalidValue`.
    public func linkIdentity(_ identity: IdentityKey, profile: IdentityProfile, to user: UserID, tokens: StoredTokens)
        async throws(StoreError) -> LinkedIdentity
    {
        try await sql.linkIdentity(identity, profile: profile, to: user, tokens: tokens)
    }

    /// Removes every identity of `provider` from the user with their tokens, refusing to remove the last one.
    /// Tokens that no longer decrypt (the secret changed) are reported as `nil`.
    ///
    /// - Throws: `StoreError` `userNotFound`, `identityNotFound`, `lastIdentity`.
    public func unlinkProvider(_ provider: String, from user: UserID) async throws(StoreError) -> [RemovedIdentity] {
        try await sql.unlinkProvider(provider, from: user)
    }

    /// Deletes the user, its identities and their tokens in one transaction. Tokens that no longer decrypt are
    /// reported as `nil`.
    ///
    /// - Throws: `StoreError` `userNotFound`.
    public func deleteUser(_ id: UserID) async throws(StoreError) -> [RemovedIdentity] { try await sql.deleteUser(id) }

    /// Stores tokens for a linked identity; a `nil` refresh token keeps the stored one.
    ///
    /// - Throws: `StoreError` `identityNotFound`, `invalidValue`.
    public func saveTokens(_ tokens: StoredTokens, for identity: IdentityKey) async throws(StoreError) {
        try await sql.saveTokens(tokens, for: identity)
    }

    /// The identity's tokens, or `nil` when none are stored.
    ///
    /// - Throws: `StoreError` `corruptData` when they do not decrypt (e.g. `server.secret` changed).
    public func tokens(for identity: IdentityKey) async throws(StoreError) -> StoredTokens? {
        try await sql.tokens(for: identity)
    }

    /// Every identity of the user with stored tokens.
    ///
    /// - Throws: `StoreError` `userNotFound`, `corruptData`.
    public func tokens(ofUser user: UserID) async throws(StoreError) -> [IdentityKey: StoredTokens] {
        try await sql.tokens(ofUser: user)
    }

    /// Deletes the identity's tokens and returns them; tokens that no longer decrypt are reported as `nil`.
    ///
    /// - Throws: `StoreError`.
    public func deleteTokens(for identity: IdentityKey) async throws(StoreError) -> StoredTokens? {
        try await sql.deleteTokens(for: identity)
    }

    /// The identity of `provider` whose stored refresh token `identifier` names, found by the lookup index
    /// written with the token; `nil` when none or (for a prefix) several match.
    ///
    /// - Throws: `StoreError` `invalidValue` for an empty provider.
    public func identity(provider: String, refreshToken identifier: RefreshTokenIdentifier) async throws(StoreError)
        -> IdentityKey?
    {
        try await sql.identity(provider: provider, refreshToken: identifier)
    }

    /// Takes the identity's refresh lease with one conditional `UPDATE` unless an unexpired one is held.
    ///
    /// - Throws: `StoreError` `invalidValue`, `corruptData`.
    public func beginTokenRefresh(for identity: IdentityKey, holder: String, leaseDuration: Double)
        async throws(StoreError) -> RefreshLease?
    {
        try await sql.beginTokenRefresh(for: identity, holder: holder, leaseDuration: leaseDuration)
    }

    /// Writes the refreshed tokens and ends `holder`'s lease in one `UPDATE`, only while `holder` holds it.
    ///
    /// - Throws: `StoreError` `leaseLost`, `identityNotFound`, `invalidValue`.
    public func completeTokenRefresh(_ tokens: StoredTokens, for identity: IdentityKey, holder: String)
        async throws(StoreError)
    {
        try await sql.completeTokenRefresh(tokens, for: identity, holder: holder)
    }

    /// Ends `holder`'s lease, leaving the tokens unchanged.
    ///
    /// - Throws: `StoreError` `invalidValue`.
    public func releaseTokenRefresh(for identity: IdentityKey, holder: String) async throws(StoreError) {
        try await sql.releaseTokenRefresh(for: identity, holder: holder)
    }

    /// Disables or enables sign-in with the identity.
    ///
    /// - Throws: `StoreError` `identityNotFound`.
    public func setIdentityDisabled(_ disabled: Bool, for identity: IdentityKey) async throws(StoreError)
        -> LinkedIdentity
    {
        try await sql.setIdentityDisabled(disabled, for: identity)
    }

    /// Updates the identity's profile fields; `nil` keeps a stored value.
    ///
    /// - Throws: `StoreError` `identityNotFound`, `invalidValue`.
    public func updateIdentityProfile(_ update: IdentityProfileUpdate, for identity: IdentityKey)
        async throws(StoreError) -> LinkedIdentity
    {
        try await sql.updateIdentityProfile(update, for: identity)
    }

    /// Updates the identity's profile fields and stores its tokens, in one transaction.
    ///
    /// - Throws: `StoreError` `identityNotFound`, `invalidValue`.
    public func updateIdentityProfile(
        _ update: IdentityProfileUpdate, for identity: IdentityKey, tokens: StoredTokens
    ) async throws(StoreError) -> LinkedIdentity {
        try await sql.updateIdentityProfile(update, for: identity, tokens: tokens)
    }

    /// Parks a pending profile (purging expired ones in the same transaction); an expired record with the same
    /// key is replaced.
    ///
    /// - Throws: `StoreError` `duplicateKey` when a live record has that key, `capacityExceeded` when the
    ///   store's bound is reached, `invalidValue`.
    public func putPendingProfile(_ profile: PendingProfile) async throws(StoreError) {
        try await sql.putPendingProfile(profile)
    }

    /// Removes and returns the live pending profile under `key` in one statement.
    ///
    /// - Throws: `StoreError`.
    public func takePendingProfile(key: String) async throws(StoreError) -> PendingProfile? {
        try await sql.takePendingProfile(key: key)
    }

    /// Records `id` and applies every change in one transaction; `false` (nothing changed) when `id` was
    /// applied before.
    ///
    /// - Throws: `StoreError` `identityNotFound` (nothing applied, `id` not recorded), `invalidValue`.
    public func applyNotification(id: String, changes: [AccountChange]) async throws(StoreError) -> Bool {
        try await sql.applyNotification(id: id, changes: changes)
    }

    /// Whether notification `id` was applied.
    ///
    /// - Throws: `StoreError` `invalidValue`.
    public func isNotificationApplied(id: String) async throws(StoreError) -> Bool {
        try await sql.isNotificationApplied(id: id)
    }

    /// Checks that the database answers and holds the schema.
    ///
    /// - Throws: `StoreError`.
    public func checkHealth() async throws(StoreError) { try await sql.checkHealth() }
}
