/// What account resolution decides from: the sign-in and what the stores hold for it.
///
/// ``AccountResolver`` fills it from an `AccountStore`; ``AccountRules/decide(_:)`` reads nothing else.
package struct AccountSituation: Sendable, Hashable {
    /// Login, register or link.
    package var intent: SignInIntent
    /// The configured name of the provider that signed in.
    package var provider: String
    /// The identity as stored (its user and whether it is disabled), or `nil` when it has no user yet.
    package var storedIdentity: LinkedIdentity?
    /// The user signed in in this browser or app; only a `link` reads it.
    package var signedInUser: UserID?
    /// What established ``signedInUser``; only a `link` reads it.
    package var linkAuthority: LinkAuthority
    /// The sign-in's email, if any.
    package var email: String?
    /// Whether the provider's plugin vouches for ``email`` as linkable (``VerifiedIdentity/emailLinkable``):
    /// verified, not a private relay address, from a provider that checks addresses.
    package var emailLinkable: Bool
    /// The users the store found holding ``email`` (it may narrow loosely: only exact matches through a
    /// trusted identity count). Read only when ``AccountRules/emailToMatch(_:)`` asks for them.
    package var usersWithEmail: [UserAccount]
    /// `true` when this sign-in's `create` lost to another one creating a user for the same identity at the
    /// same time (the store refused a second user for it), and the stores were read again.
    package var lostCreateRace: Bool

    /// Creates a situation.
    package init(
        intent: SignInIntent, provider: String, storedIdentity: LinkedIdentity?, signedInUser: UserID? = nil,
        linkAuthority: LinkAuthority = .flowBoundCookie, email: String? = nil, emailLinkable: Bool = false,
        usersWithEmail: [UserAccount] = [], lostCreateRace: Bool = false
    ) {
        self.intent = intent
        self.provider = provider
        self.storedIdentity = storedIdentity
        self.signedInUser = signedInUser
        self.linkAuthority = linkAuthority
        self.email = email
        self.emailLinkable = emailLinkable
        self.usersWithEmail = usersWithEmail
        self.lostCreateRace = lostCreateRace
    }
}
