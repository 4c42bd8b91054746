/// Provider tokens of linked identities and the leases that let one caller at a time refresh them: one of the
/// three concerns of an account store (``AccountStore``).
///
/// Persistent implementations encrypt tokens at rest. Every operation is atomic (one statement or one
/// transaction), so several server instances can share the store; expiry follows the injected clock.
///
/// Every method throws ``StoreError``; `backendFailure`, `busy` and `corruptDatabase` can come from any of
/// them, the other codes are listed per method.
public protocol TokenStore: Sendable {
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
}
