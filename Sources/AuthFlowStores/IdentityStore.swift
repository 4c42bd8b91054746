/// Durable storage of users and their linked provider identities: one of the three concerns of an account
/// store (``AccountStore``), beside provider tokens (``TokenStore``) and provider events (``ProviderEventStore``).
///
/// Every operation is atomic and maps onto one SQL statement or one transaction, so several server instances
/// can share a store: implementations keep nothing in process memory that another instance would need.
/// Timestamps (`createdAt`, `updatedAt`) follow the implementation's injected clock. The writes that take
/// `tokens` store them in the same transaction, so an implementation of this protocol also implements
/// ``TokenStore`` over the same storage.
///
/// Sessions live in a separate ``SessionStore``: after ``unlinkProvider(_:from:)`` or ``deleteUser(_:)`` the
/// caller also deletes the matching sessions there (for account deletion: read and revoke tokens, delete the
/// sessions, then delete the user, so a failure part-way never leaves a live session for a deleted user).
///
/// Every method throws ``StoreError``; `backendFailure`, `busy` and `corruptDatabase` can come from any of
/// them, the other codes are listed per method.
public protocol IdentityStore: Sendable {
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

    /// Creates the user `id` with its first identity and, when `tokens` are given, stores them for it, in one
    /// transaction: a sign-in's account write and its tokens are kept (and reach the disk) together, or neither is.
    ///
    /// - Throws: `duplicateUser` when `id` exists, `identityAlreadyLinked` when the identity belongs to a
    ///   user, `invalidValue` for an empty provider or subject or for tokens ``TokenStore/saveTokens(_:for:)``
    ///   refuses. Nothing is stored when it throws.
    func createUser(_ id: UserID, identity: IdentityKey, profile: IdentityProfile, tokens: StoredTokens?)
        async throws(StoreError) -> UserAccount

    /// Links the identity to the existing user `user` and, when `tokens` are given, stores them for it, in one
    /// transaction.
    ///
    /// Linking an identity that already belongs to `user` changes nothing and returns it as stored (the tokens
    /// are still stored).
    ///
    /// - Throws: `identityAlreadyLinked` when it belongs to another user, `userNotFound`, `invalidValue`.
    func linkIdentity(_ identity: IdentityKey, profile: IdentityProfile, to user: UserID, tokens: StoredTokens?)
        async throws(StoreError) -> LinkedIdentity

    /// Updates the identity's profile fields and whether sign-in with it is disabled (see
    /// ``IdentityProfileUpdate``: `nil` keeps a stored value, so a known name is never lost) and, when `tokens`
    /// are given, stores them for it, in one transaction; returns the identity as now stored.
    ///
    /// - Throws: `identityNotFound`, `invalidValue`.
    func updateIdentityProfile(_ update: IdentityProfileUpdate, for identity: IdentityKey, tokens: StoredTokens?)
        async throws(StoreError) -> LinkedIdentity

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
}
