/// The sign-up and linking rules of account resolution, and the pure decision they make: no I/O, the same
/// ``AccountDecision`` for the same ``AccountSituation``.
///
/// - `login`: an existing identity signs in (refused when disabled); a new one links to the single user
///   holding exactly the same verified email through an identity whose provider vouches for it, when
///   ``linkByVerifiedEmail`` allows the signing-in provider **and** the provider of that stored identity, and
///   both plugins vouch for the address (no private relay address on either side); else a user is created
///   unless ``signup`` is off (`signup_disabled`).
/// - `register`: refuses an identity that already has a user (`account_exists`); else creates a user unless
///   ``signup`` is off.
/// - `link`: attaches the identity to the signed-in user (`not_signed_in` without one, `link_not_authorised`
///   when a session cookie alone presented it (``LinkAuthority``), `account_exists` when another user has it);
///   an identity already the signed-in user's signs in.
///
/// A `create` that lost a race to another sign-in of the same identity is decided again with
/// ``AccountSituation/lostCreateRace``: the winner's user signs in, or `account_exists` when it cannot be read.
package struct AccountRules: Sendable, Hashable {
    /// Whether a new identity may create a user (`server.signup`).
    package var signup: Bool
    /// Which providers' verified emails may link a first sign-in to an existing user.
    package var linkByVerifiedEmail: EmailLinkPolicy
    /// The providers (by configured name) whose stored verified emails a new sign-in may link to: configured,
    /// and whose plugin vouches for addresses (not ``EmailLinkability/never(reason:)``).
    package var vouchingProviders: Set<String>

    /// Creates rules.
    package init(signup: Bool, linkByVerifiedEmail: EmailLinkPolicy = .off, vouchingProviders: Set<String> = []) {
        self.signup = signup
        self.linkByVerifiedEmail = linkByVerifiedEmail
        self.vouchingProviders = vouchingProviders
    }

    /// The longest subject an identity may be keyed by, in UTF-8 bytes: OpenID Connect Core §2 caps `sub` at 255
    /// ASCII characters.
    package static let maximumSubjectBytes = 255

    /// `invalid_subject` when the subject of `identity` is empty, longer than ``maximumSubjectBytes`` or holds a
    /// control character (C0, DEL, C1), a line or paragraph separator or a bidirectional control: it would be
    /// stored as a key that admin tools print, logs and events name, so it is refused before anything is
    /// stored. `nil` when it may key an identity.
    package static func subjectRefusal(_ identity: IdentityKey) -> AccountRefusal? {
        let subject = identity.subject
        let found: String
        if subject.isEmpty {
            found = "an empty one"
        } else if subject.utf8.count > maximumSubjectBytes {
            found = "one of \(subject.utf8.count) bytes"
        } else if ControlCharacters.appear(in: subject) {
            found = "one with such a character"
        } else {
            return nil
        }
        return .invalidSubject(provider: identity.provider, found: found)
    }

    /// The email whose holders the decision needs (``AccountSituation/usersWithEmail``), or `nil` when it
    /// needs none: a login of a new identity whose linkable email the policy lets link.
    package func emailToMatch(_ situation: AccountSituation) -> String? {
        guard situation.intent == .login, situation.storedIdentity == nil, !situation.lostCreateRace,
            situation.emailLinkable, linkByVerifiedEmail.allows(provider: situation.provider)
        else { return nil }
        return situation.email
    }

    /// Decides what the sign-in does to the accounts.
    package func decide(_ situation: AccountSituation) -> AccountDecision {
        switch situation.intent {
        case .login:
            if let stored = situation.storedIdentity {
                return stored.isDisabled ? .refuse(.identityDisabled) : .update
            }
            // The store refused a second user for this identity, yet it is not there: nothing to sign in as.
            if situation.lostCreateRace { return .refuse(.accountExists(provider: nil)) }
            if let email = emailToMatch(situation) {
                let holders = situation.usersWithEmail.filter { holds($0, email) }
                if holders.count == 1, let user = holders.first { return .link(to: user.id, byVerifiedEmail: true) }
            }
            return signup ? .create : .refuse(.signupDisabled)
        case .register:
            // A register that lost the race is refused as the store refused it.
            if situation.lostCreateRace { return .refuse(.accountExists(provider: nil)) }
            if situation.storedIdentity != nil { return .refuse(.accountExists(provider: situation.provider)) }
            return signup ? .create : .refuse(.signupDisabled)
        case .link:
            guard let user = situation.signedInUser else { return .refuse(.notSignedIn(provider: situation.provider)) }
            guard situation.linkAuthority.authorisesLink else {
                return .refuse(.linkNotAuthorised(provider: situation.provider))
            }
            if let stored = situation.storedIdentity {
                guard stored.userID == user else { return .refuse(.accountExists(provider: situation.provider)) }
                return stored.isDisabled ? .refuse(.identityDisabled) : .update
            }
            return .link(to: user, byVerifiedEmail: false)
        }
    }

    /// Whether `user` holds exactly `email` through an enabled identity whose verified address may be linked
    /// to: the same trust as the linking side (no private relay address, a vouching provider, and a provider
    /// ``linkByVerifiedEmail`` allows: with a list, both sides of a link come from listed providers).
    func holds(_ user: UserAccount, _ email: String) -> Bool {
        user.identities.contains { identity in
            identity.emailVerified && !identity.isDisabled && !identity.isPrivateEmail
                && vouchingProviders.contains(identity.provider)
                && linkByVerifiedEmail.allows(provider: identity.provider)
                && identity.email.map { EmailLinkPolicy.matches($0, email) } ?? false
        }
    }
}
