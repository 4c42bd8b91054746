/// When a plugin vouches for a sign-in's email as linkable (the identity's `emailLinkable`, used by
/// `link_by_verified_email`); reports such as `authflow matrix` show it.
public enum EmailLinkability: Sendable, Hashable {
    /// When the provider states the email verified, in the claim or member named (e.g. `email_verified`).
    case whenVerified(by: String)
    /// Never: the provider's email is no proof of mailbox ownership.
    case never(reason: String)

    /// `never`, or the claim or member that makes the email linkable.
    package var summary: String {
        switch self {
        case .whenVerified(let signal): signal
        case .never: "never"
        }
    }
}
