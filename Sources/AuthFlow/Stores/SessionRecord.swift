public import Foundation

/// What a ``SessionStore`` keeps for a signed-in browser.
public struct SessionRecord: Sendable, Hashable {
    /// The signed-in user.
    public let userID: UserID
    /// The provider the user signed in with.
    public let provider: String
    /// The subject of the identity the user signed in with.
    public let subject: String
    /// When the session began.
    public let createdAt: Date
    /// When the session ends; lookups after this return `nil`.
    public let expiresAt: Date

    /// Creates a session record.
    public init(userID: UserID, provider: String, subject: String, createdAt: Date, expiresAt: Date) {
        self.userID = userID
        self.provider = provider
        self.subject = subject
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }

    /// The `(provider, subject)` of the identity the user signed in with.
    public var identity: IdentityKey { IdentityKey(provider: provider, subject: subject) }
}
