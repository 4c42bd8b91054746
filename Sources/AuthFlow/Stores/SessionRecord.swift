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
    /// The provider's session id (the id_token's `sid`), when the sign-in had one; OpenID Connect
    /// back-channel logout ends sessions by it.
    public let providerSessionID: String?
    /// How the session's token travels; default ``SessionKind/cookie``.
    public let kind: SessionKind

    /// Creates a session record.
    public init(
        userID: UserID, provider: String, subject: String, createdAt: Date, expiresAt: Date,
        providerSessionID: String? = nil, kind: SessionKind = .cookie
    ) {
        self.kind = kind
        self.userID = userID
        self.provider = provider
        self.subject = subject
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.providerSessionID = providerSessionID
    }

    /// The `(provider, subject)` of the identity the user signed in with.
    public var identity: IdentityKey { IdentityKey(provider: provider, subject: subject) }
}
