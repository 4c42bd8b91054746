extension IdentityProfile {
    /// The profile of a verified sign-in: email, its verification, whether it is a private relay address
    /// (``VerifiedIdentity/isPrivateRelayEmail``), and the name — `name` when given (e.g. Apple's first-login name from a `PendingProfile`),
    /// else the provider's.
    package init(_ identity: VerifiedIdentity, name: String? = nil) {
        self.init(
            email: identity.email, emailVerified: identity.email != nil && identity.emailVerified,
            isPrivateEmail: identity.email != nil && identity.isPrivateRelayEmail,
            name: name ?? identity.name)
    }
}

extension IdentityProfileUpdate {
    /// The update a later sign-in makes: only what the provider sent this time. An absent email, private-email
    /// flag or name keeps the stored value (Apple sends the name only once).
    package init(_ identity: VerifiedIdentity, name: String? = nil) {
        self.init(
            email: identity.email, emailVerified: identity.email == nil ? nil : identity.emailVerified,
            isPrivateEmail: identity.email == nil ? nil : identity.isPrivateRelayEmail, emailDisabled: nil,
            name: name ?? identity.name)
    }
}

extension IdentityKey {
    /// The key of a verified identity: its provider and subject.
    package init(_ identity: VerifiedIdentity) {
        self.init(provider: identity.provider, subject: identity.subject)
    }
}
