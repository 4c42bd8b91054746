/// Durable storage of users, their linked provider identities, provider tokens, Apple's pending first-login
/// names and applied notification ids: the three concerns ``IdentityStore``, ``TokenStore`` and
/// ``ProviderEventStore`` over one storage, so that an account write and its tokens share a transaction.
///
/// A store author implements the three protocols on one type, as the in-memory store and the SQLite and
/// PostgreSQL stores do.
public typealias AccountStore = IdentityStore & ProviderEventStore & TokenStore

extension IdentityStore {
    /// Creates the user with its first identity and no tokens.
    package func createUser(_ id: UserID, identity: IdentityKey, profile: IdentityProfile) async throws(StoreError)
        -> UserAccount
    {
        try await createUser(id, identity: identity, profile: profile, tokens: nil)
    }

    /// Links the identity to an existing user, storing no tokens.
    package func linkIdentity(_ identity: IdentityKey, profile: IdentityProfile, to user: UserID)
        async throws(StoreError) -> LinkedIdentity
    {
        try await linkIdentity(identity, profile: profile, to: user, tokens: nil)
    }

    /// Updates the identity's profile fields, storing no tokens.
    package func updateIdentityProfile(_ update: IdentityProfileUpdate, for identity: IdentityKey)
        async throws(StoreError) -> LinkedIdentity
    {
        try await updateIdentityProfile(update, for: identity, tokens: nil)
    }

    /// Disables or re-enables sign-in with the identity; returns it as now stored.
    package func setIdentityDisabled(_ disabled: Bool, for identity: IdentityKey) async throws(StoreError)
        -> LinkedIdentity
    {
        try await updateIdentityProfile(IdentityProfileUpdate(disabled: disabled), for: identity, tokens: nil)
    }
}
