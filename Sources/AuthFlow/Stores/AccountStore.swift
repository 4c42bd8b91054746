/// Durable storage of users, their linked provider identities, provider tokens, Apple's pending
/// first-login names and applied notification ids.
///
/// Every operation is atomic and maps onto one SQL statement or one transaction (and onto Redis or
/// PostgreSQL later), so several server instances can share a store: implementations keep nothing in
/// process memory that another instance would need. Timestamps (`createdAt`, `updatedAt`) and expiry come
/// from the implementation's injected clock.
///
/// Persistent implementations encrypt tokens at rest. Sessions live in a separate ``SessionStore``: after
/// ``unlinkProvider(_:from:)`` or ``deleteUser(_:)`` the caller also deletes the matching sessions there
/// (for account deletion: read and revoke tokens, delete the sessions, then delete the user, so a failure
/// part-way never leaves a live session for a deleted user).
///
/// Every method throws ``StoreError``; `backendFailure`, `busy` and `corruptDatabase` can come from any of
/// them, the other codes are listed per method.
public protocol AccountStore: Sendable {
    /// The stored identity `(provider, subject)`, or `nil` when it is not linked to any user.
    func identity(_ key: IdentityKey) async throws(StoreError) -> LinkedIdentity?

    /// The user with its identities, or `nil` when there is no such user.
    func user(_ id: UserID) async throws(StoreError) -> UserAccount?

    /// The users that have an enabled identity whose email is `email` (compared case-insensitively) and
    /// verified, oldest first; for optional linking by verified email. More than one user can match (they
    /// were created before linking was enabled); link only when exactly one does.
    func users(withVerifiedEmail email: String) async throws(StoreError) -> [UserAccount]

    /// Up to `limit` users, each with its identities, whose id sorts after `cursor` (every user when `nil`),
    /// in the store's order of ids: one page of the user list for administration (`authflow users list`).
    /// Pass the last id of a page as the next page's `cursor`; an empty page is the end.
    ///
    /// - Throws: `invalidValue` for a `limit` below 1.
    func users(after cursor: UserID?, limit: Int) async throws(StoreError) -> [UserAccount]

    /// Creates the user `id` with its first identity, in one transaction.
    ///
    /// - Throws: `duplicateUser` when `id` exists, `identityAlreadyLinked` when the identity belongs to a
    ///   user, `invalidValue` for an empty provider or subject. Nothing is stored when it throws.
    func createUser(_ id: UserID, identity: IdentityKey, profile: IdentityProfile) async throws(StoreError)
        -> UserAccount

    /// Links the identity to the existing user `user`.
    ///
    /// Linking an identity that already belongs to `user` changes nothing and returns it as stored.
    ///
    /// - Throws: `identityAlreadyLinked` when it belongs to another user, `userNotFound`, `invalidValue`.
    func linkIdentity(_ identity: IdentityKey, profile: IdentityProfile, to user: UserID) async throws(StoreError)
        -> LinkedIdentity

    /// Removes every identity of `provider` from `user`, with their tokens, in one transaction, and returns
    /// what was removed so the caller can revoke the tokens and delete the identities' sessions.
    ///
    /// A user must keep at least one identity to sign in with: removing the last one is refused (delete the
    /// user instead).
    ///
    /// - Throws: `userNotFound`, `identityNotFound` when the user has no identity of `provider`,
    ///   `lastIdentity` when nothing would be left. Nothing is removed when it throws.
    func unlinkProvider(_ provider: String, from user: UserID) async throws(StoreError) -> [RemovedIdentity]

    /// Deletes the user, its identities and their tokens in one transaction; returns every removed
    /// identity with its tokens (for revocation). Sessions are deleted through the ``SessionStore``.
    ///
    /// - Throws: `userNotFound`.
    func deleteUser(_ id: UserID) async throws(StoreError) -> [RemovedIdentity]

    /// Stores tokens for a linked identity, replacing the stored access token, expiry and scope.
    ///
    /// A `nil` refresh token keeps the stored one (providers often omit it on later sign-ins, and it is
    /// what revocation needs); ``deleteTokens(for:)`` removes tokens.
    ///
    /// - Throws: `identityNotFound`.
    func saveTokens(_ tokens: StoredTokens, for identity: IdentityKey) async throws(StoreError)

    /// The tokens stored for the identity, or `nil` when none are.
    ///
    /// - Throws: `corruptData` when stored tokens cannot be decrypted (e.g. after `server.secret` changed).
    func tokens(for identity: IdentityKey) async throws(StoreError) -> StoredTokens?

    /// Every identity of the user that has stored tokens, with its tokens (to revoke before deleting).
    ///
    /// - Throws: `userNotFound`, `corruptData`.
    func tokens(ofUser user: UserID) async throws(StoreError) -> [IdentityKey: StoredTokens]

    /// Deletes the identity's tokens and returns what was stored, or `nil` when nothing was.
    func deleteTokens(for identity: IdentityKey) async throws(StoreError) -> StoredTokens?

    /// The identity of `provider` whose stored refresh token `identifier` names (a provider's revocation
    /// notice such as Google RISC `token-revoked`), or `nil` when none does or, for a prefix, when more than one
    /// does (it names neither for sure).
    ///
    /// Persistent stores look the token up by an index written with it: the base64 SHA-512-of-SHA-512 digest
    /// and a keyed digest of its prefix (never the prefix in clear). Rows written before that index existed get
    /// it on their next save or refresh; until then they are not found.
    ///
    /// - Throws: `invalidValue` for an empty provider.
    func identity(provider: String, refreshToken identifier: RefreshTokenIdentifier) async throws(StoreError)
        -> IdentityKey?

    /// Takes the identity's refresh lease when no unexpired lease is held, in one conditional write, so that
    /// of several callers (in one process or in several instances sharing the store) exactly one refreshes a
    /// token at a time; a crashed holder's lease simply expires.
    ///
    /// - Parameters:
    ///   - identity: the identity whose tokens are to be refreshed.
    ///   - holder: an id unique to this attempt; only it can complete or release the lease.
    ///   - leaseDuration: seconds the lease lasts (longer than the provider call may take).
    /// - Returns: ``RefreshLease/acquired(_:)`` or ``RefreshLease/held(_:)`` with the stored tokens, or `nil`
    ///   when no tokens are stored for the identity.
    /// - Throws: `invalidValue` (empty holder, a duration not positive and finite), `corruptData`.
    func beginTokenRefresh(for identity: IdentityKey, holder: String, leaseDuration: Double) async throws(StoreError)
        -> RefreshLease?

    /// Writes the refreshed tokens (access token, expiry, scope and the refresh token to keep) and ends
    /// `holder`'s lease, only while `holder` holds it (an expired lease no one took since still counts).
    /// When another holder took the lease over, or tokens were saved since, nothing is written: the store
    /// keeps the newer state.
    ///
    /// - Throws: `leaseLost` when `holder` no longer holds the lease, `identityNotFound` when the identity's
    ///   tokens were deleted meanwhile, `invalidValue`.
    func completeTokenRefresh(_ tokens: StoredTokens, for identity: IdentityKey, holder: String)
        async throws(StoreError)

    /// Ends `holder`'s lease without changing the tokens (the refresh failed); nothing happens when another
    /// holder has the lease or none is held.
    ///
    /// - Throws: `invalidValue`.
    func releaseTokenRefresh(for identity: IdentityKey, holder: String) async throws(StoreError)

    /// Disables or re-enables sign-in with the identity; returns it as now stored.
    ///
    /// - Throws: `identityNotFound`.
    func setIdentityDisabled(_ disabled: Bool, for identity: IdentityKey) async throws(StoreError)
        -> LinkedIdentity

    /// Updates the identity's profile fields (see ``IdentityProfileUpdate``: `nil` keeps a stored value, so
    /// a known name is never lost); returns the identity as now stored.
    ///
    /// - Throws: `identityNotFound`.
    func updateIdentityProfile(_ update: IdentityProfileUpdate, for identity: IdentityKey) async throws(StoreError)
        -> LinkedIdentity

    /// Creates the user `id` with its first identity and stores `tokens` for it, in one transaction: a sign-in's
    /// account write and its tokens are kept (and reach the disk) together, or neither is.
    ///
    /// A custom store may keep the default, which calls ``createUser(_:identity:profile:)`` and then
    /// ``saveTokens(_:for:)`` (two commits).
    ///
    /// - Throws: as ``createUser(_:identity:profile:)``, and `invalidValue` for tokens ``saveTokens(_:for:)`` refuses.
    func createUser(_ id: UserID, identity: IdentityKey, profile: IdentityProfile, tokens: StoredTokens)
        async throws(StoreError) -> UserAccount

    /// Links the identity to the existing user `user` (as ``linkIdentity(_:profile:to:)``) and stores `tokens`
    /// for it, in one transaction. The default calls the two operations one after the other.
    ///
    /// - Throws: as ``linkIdentity(_:profile:to:)``, and `invalidValue` for tokens ``saveTokens(_:for:)`` refuses.
    func linkIdentity(_ identity: IdentityKey, profile: IdentityProfile, to user: UserID, tokens: StoredTokens)
        async throws(StoreError) -> LinkedIdentity

    /// Updates the identity's profile fields (as ``updateIdentityProfile(_:for:)``) and stores `tokens` for it,
    /// in one transaction. The default calls the two operations one after the other.
    ///
    /// - Throws: `identityNotFound`, and `invalidValue` for tokens ``saveTokens(_:for:)`` refuses.
    func updateIdentityProfile(_ update: IdentityProfileUpdate, for identity: IdentityKey, tokens: StoredTokens)
        async throws(StoreError) -> LinkedIdentity

    /// Parks Apple's first-login name under `profile.key` (the flow's state) until ``takePendingProfile(key:)``.
    /// Called before the token exchange, so the name survives a later failure. Expired records are purged.
    ///
    /// - Throws: `duplicateKey` when a live record has that key, `invalidValue` (an expiry not in the future),
    ///   `capacityExceeded` when a bounded store is full.
    func putPendingProfile(_ profile: PendingProfile) async throws(StoreError)

    /// Removes and returns the live pending profile stored under `key`; `nil` when unknown, already taken or
    /// expired. Atomic: of concurrent takes, one gets the record.
    func takePendingProfile(key: String) async throws(StoreError) -> PendingProfile?

    /// Applies the changes of a provider notification exactly once: records `id` and applies every change in
    /// one transaction.
    ///
    /// - Returns: `true` when applied, `false` (and nothing changed) when `id` was applied before.
    /// - Throws: `identityNotFound` when a change names an unknown identity, `invalidValue` for an empty id;
    ///   when it throws nothing is applied and `id` is not recorded.
    func applyNotification(id: String, changes: [AccountChange]) async throws(StoreError) -> Bool

    /// Whether a provider notification `id` was applied (recorded by ``applyNotification(id:changes:)``); a
    /// status page such as Facebook's data deletion status reads it.
    ///
    /// - Throws: `invalidValue` for an empty id.
    func isNotificationApplied(id: String) async throws(StoreError) -> Bool

    /// Checks that the store answers (for `GET /healthz`).
    func checkHealth() async throws(StoreError)
}

extension AccountStore {
    /// Creates the user, then saves its tokens: two commits (stores that can write both in one transaction
    /// implement this requirement themselves).
    ///
    /// - Throws: `StoreError`, as the two operations.
    public func createUser(_ id: UserID, identity: IdentityKey, profile: IdentityProfile, tokens: StoredTokens)
        async throws(StoreError) -> UserAccount
    {
        let account = try await createUser(id, identity: identity, profile: profile)
        try await saveTokens(tokens, for: identity)
        return account
    }

    /// Links the identity, then saves its tokens: two commits.
    ///
    /// - Throws: `StoreError`, as the two operations.
    public func linkIdentity(_ identity: IdentityKey, profile: IdentityProfile, to user: UserID, tokens: StoredTokens)
        async throws(StoreError) -> LinkedIdentity
    {
        let linked = try await linkIdentity(identity, profile: profile, to: user)
        try await saveTokens(tokens, for: identity)
        return linked
    }

    /// Updates the identity's profile, then saves its tokens: two commits.
    ///
    /// - Throws: `StoreError`, as the two operations.
    public func updateIdentityProfile(
        _ update: IdentityProfileUpdate, for identity: IdentityKey, tokens: StoredTokens
    ) async throws(StoreError) -> LinkedIdentity {
        let updated = try await updateIdentityProfile(update, for: identity)
        try await saveTokens(tokens, for: identity)
        return updated
    }
}
