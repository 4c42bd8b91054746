/// The profile fields stored with a newly linked identity, taken from a verified sign-in.
public struct IdentityProfile: Sendable, Hashable {
    /// The email address, when the provider returned one.
    public var email: String?
    /// Whether the provider asserts the email address is verified.
    public var emailVerified: Bool
    /// Whether the address is a private relay address (Apple `is_private_email`).
    public var isPrivateEmail: Bool
    /// The display name, if known (for Apple: from the first-login `user` field, see ``PendingProfile``).
    public var name: String?

    /// Creates a profile.
    public init(email: String? = nil, emailVerified: Bool = false, isPrivateEmail: Bool = false, name: String? = nil) {
        self.email = email
        self.emailVerified = emailVerified
        self.isPrivateEmail = isPrivateEmail
        self.name = name
    }
}
