package import Foundation

extension LinkedIdentity {
    /// A new identity linked to `user` at `now` with `profile`'s fields; store implementations share this.
    package init(user: UserID, key: IdentityKey, profile: IdentityProfile, at now: Date) {
        self.init(
            userID: user, provider: key.provider, subject: key.subject, email: profile.email,
            emailVerified: profile.emailVerified, isPrivateEmail: profile.isPrivateEmail, emailDisabled: false,
            name: profile.name, isDisabled: false, createdAt: now, updatedAt: now)
    }

    /// The identity with `update` applied at `now`, by the rules every store shares: a `nil` field keeps the
    /// stored value (a known name is never replaced by `nil`); a different email address (compared
    /// case-insensitively) without `emailVerified` becomes unverified; `updatedAt` moves only when a field
    /// changes.
    package func applying(_ update: IdentityProfileUpdate, at now: Date) -> LinkedIdentity {
        var newEmail = email
        var newVerified = update.emailVerified ?? emailVerified
        if let address = update.email {
            let changed = email.map(StoreValidation.normalizedEmail) != StoreValidation.normalizedEmail(address)
            if changed && update.emailVerified == nil { newVerified = false }
            newEmail = address
        }
        let updated = LinkedIdentity(
            userID: userID, provider: provider, subject: subject, email: newEmail, emailVerified: newVerified,
            isPrivateEmail: update.isPrivateEmail ?? isPrivateEmail,
            emailDisabled: update.emailDisabled ?? emailDisabled,
            name: update.name ?? name, isDisabled: update.disabled ?? isDisabled, createdAt: createdAt,
            updatedAt: updatedAt)
        return updated == self ? self : updated.touched(at: now)
    }

    /// The identity with sign-in disabled or enabled at `now`; unchanged when the flag already has that value.
    package func settingDisabled(_ disabled: Bool, at now: Date) -> LinkedIdentity {
        guard disabled != isDisabled else { return self }
        return LinkedIdentity(
            userID: userID, provider: provider, subject: subject, email: email, emailVerified: emailVerified,
            isPrivateEmail: isPrivateEmail, emailDisabled: emailDisabled, name: name, isDisabled: disabled,
            createdAt: createdAt, updatedAt: now)
    }

    private func touched(at now: Date) -> LinkedIdentity {
        LinkedIdentity(
            userID: userID, provider: provider, subject: subject, email: email, emailVerified: emailVerified,
            isPrivateEmail: isPrivateEmail, emailDisabled: emailDisabled, name: name, isDisabled: isDisabled,
            createdAt: createdAt, updatedAt: now)
    }
}
