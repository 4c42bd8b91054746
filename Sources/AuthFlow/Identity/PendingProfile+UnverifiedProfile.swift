package import Foundation

extension PendingProfile {
    /// Parks Apple's first-login name from `profile` under `key` (the flow's state) until `expiresAt`.
    package init(key: String, profile: UnverifiedProfile, expiresAt: Date) {
        self.init(
            key: key, provider: profile.provider, firstName: profile.firstName, lastName: profile.lastName,
            expiresAt: expiresAt)
    }

    /// The parked name as the core's ``UnverifiedProfile``.
    package var unverifiedProfile: UnverifiedProfile {
        UnverifiedProfile(provider: provider, firstName: firstName, lastName: lastName)
    }
}
