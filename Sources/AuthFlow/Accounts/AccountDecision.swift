/// What a completed sign-in does to the accounts, as ``AccountRules/decide(_:)`` finds it.
package enum AccountDecision: Sendable, Hashable {
    /// The identity already has a user: it signs in as that user, its stored profile updated.
    case update
    /// A new user is created holding the identity.
    case create
    /// The identity is attached to the existing user `to`; `byVerifiedEmail` when that user was found by the
    /// identity's verified email (`server.link_by_verified_email`) rather than by a signed-in session.
    case link(to: UserID, byVerifiedEmail: Bool)
    /// The sign-in is refused.
    case refuse(AccountRefusal)
}
