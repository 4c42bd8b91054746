public import Foundation

/// A provider identity linked to a user, as stored.
public struct LinkedIdentity: Sendable, Hashable {
    /// The user the identity belongs to.
    public let userID: UserID
    /// The configured provider name.
    public let provider: String
    /// The provider's subject identifier.
    public let subject: String
    /// The email address, when known.
    public let email: String?
    /// Whether the provider asserted the email address is verified.
    public let emailVerified: Bool
    /// Whether the address is a private relay address (Apple).
    public let isPrivateEmail: Bool
    /// Whether the provider reported that mail to the address is no longer delivered (Apple `email-disabled`).
    public let emailDisabled: Bool
    /// The display name, when known.
    public let name: String?
    /// Whether sign-in with this identity is disabled.
    public let isDisabled: Bool
    /// When the identity was linked.
    public let createdAt: Date
    /// When the identity's stored fields last changed.
    public let updatedAt: Date

    /// Creates a stored identity (store implementations use this).
    public init(
        userID: UserID, provider: String, subject: String, email: String?, emailVerified: Bool, isPrivateEmail: Bool,
        emailDisabled: Bool, name: String?, isDisabled: Bool, createdAt: Date, updatedAt: Date
    ) {
        self.userID = userID
        self.provider = provider
        self.subject = subject
        self.email = email
        self.emailVerified = emailVerified
        self.isPrivateEmail = isPrivateEmail
        self.emailDisabled = emailDisabled
        self.name = name
        self.isDisabled = isDisabled
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// The identity's `(provider, subject)` key.
    package var key: IdentityKey { IdentityKey(provider: provider, subject: subject) }
}
