public import Foundation

/// A user and every identity linked to it.
public struct UserAccount: Sendable, Hashable {
    /// The user's opaque id.
    public let id: UserID
    /// When the user was created.
    public let createdAt: Date
    /// The linked identities, oldest first (ties ordered by provider, then subject).
    public let identities: [LinkedIdentity]

    /// Creates an account value (store implementations use this).
    public init(id: UserID, createdAt: Date, identities: [LinkedIdentity]) {
        self.id = id
        self.createdAt = createdAt
        self.identities = identities
    }
}
