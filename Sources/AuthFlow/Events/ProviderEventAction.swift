/// One effect of a verified provider event, applied by the server.
///
/// ``account(_:)`` changes of one event are applied in one `AccountStore` transaction, once per
/// idempotency key (`ProviderEventStore/applyNotification(id:changes:)`); the other actions run only when that
/// transaction applied (not on a replay), sessions through the `SessionStore`.
public enum ProviderEventAction: Sendable, Hashable {
    /// A change to the account store (profile update, disable/enable, delete tokens, remove the identity).
    case account(AccountChange)
    /// Ends every session signed in with the identity.
    case endSessions(IdentityKey)
    /// Ends every session of the user the identity belongs to (whatever identity they signed in with).
    case endUserSessions(IdentityKey)
    /// Ends the sessions that began with the provider session `providerSessionID` (the id_token's `sid`);
    /// an identity with an empty subject matches any subject of its provider (a logout token with `sid` only).
    case endProviderSession(IdentityKey, providerSessionID: String)
    /// Revokes the identity's stored tokens at the provider (read before the account changes apply, revoked
    /// after; best effort).
    case revokeTokens(IdentityKey)

    /// The identity the action concerns (the server refuses an action on another provider's identity).
    package var identity: IdentityKey {
        switch self {
        case .account(let change): change.identity
        case .endSessions(let key), .endUserSessions(let key), .endProviderSession(let key, _), .revokeTokens(let key):
            key
        }
    }

    /// The account-store change, when the action is one.
    package var accountChange: AccountChange? {
        if case .account(let change) = self { return change }
        return nil
    }
}
