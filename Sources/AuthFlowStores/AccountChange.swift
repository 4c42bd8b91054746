/// One change applied by ``ProviderEventStore/applyNotification(id:changes:)``, e.g. from an Apple
/// server-to-server event.
///
/// Every case names an identity that must exist; a change on an unknown identity fails with
/// `identityNotFound` and the whole notification is rolled back.
public enum AccountChange: Sendable, Hashable {
    /// Updates profile fields (Apple `email-enabled` / `email-disabled`: `emailDisabled`, `email`,
    /// `isPrivateEmail`).
    case updateProfile(IdentityKey, IdentityProfileUpdate)
    /// Disables or re-enables sign-in with the identity.
    case setDisabled(IdentityKey, Bool)
    /// Deletes the identity's stored tokens.
    case deleteTokens(IdentityKey)
    /// Removes the identity and its tokens (Apple `consent-revoked`, `account-delete`), even when it is the
    /// user's last identity; the user itself is kept.
    case removeIdentity(IdentityKey)

    /// The identity the change concerns.
    package var identity: IdentityKey {
        switch self {
        case .updateProfile(let key, _), .setDisabled(let key, _), .deleteTokens(let key), .removeIdentity(let key):
            return key
        }
    }
}
