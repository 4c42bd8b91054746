extension IdentityProfile {
    /// The profile of a verified sign-in: email, its verification, Apple's `is_private_email` (JSON `true` or
    /// `"true"`), and the name — `name` when given (e.g. Apple's first-login name from a ``PendingProfile``),
    /// else the provider's.
    public init(_ identity: VerifiedIdentity, name: String? = nil) {
        self.init(
            email: identity.email, emailVerified: identity.email != nil && identity.emailVerified,
            isPrivateEmail: IdentityClaims.flag(identity.rawClaims["is_private_email"]) ?? false,
            name: name ?? identity.name)
    }
}

extension IdentityProfileUpdate {
    /// The update a later sign-in makes: only what the provider sent this time. An absent email, private-email
    /// flag or name keeps the stored value (Apple sends the name only once).
    public init(_ identity: VerifiedIdentity, name: String? = nil) {
        self.init(
            email: identity.email, emailVerified: identity.email == nil ? nil : identity.emailVerified,
            isPrivateEmail: IdentityClaims.flag(identity.rawClaims["is_private_email"]), emailDisabled: nil,
            name: name ?? identity.name)
    }
}

extension IdentityKey {
    /// The key of a verified identity: its provider and subject.
    public init(_ identity: VerifiedIdentity) {
        self.init(provider: identity.provider, subject: identity.subject)
    }
}
