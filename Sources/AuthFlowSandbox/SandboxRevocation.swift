public import Foundation

/// One call to an emulated revocation endpoint, as observed by the sandbox (for tests).
public struct SandboxRevocation: Sendable, Hashable {
    /// What the revoked token turned out to be.
    public enum TokenKind: String, Sendable, Hashable {
        /// A live or expired access token issued by the sandbox.
        case accessToken = "access_token"
        /// A refresh token issued by the sandbox.
        case refreshToken = "refresh_token"
        /// A value the sandbox never issued (Apple still answers 200).
        case unknown
    }

    /// The token exactly as the client sent it.
    public let token: String
    /// The `token_type_hint` the client sent, if any.
    public let tokenTypeHint: String?
    /// What the token was.
    public let kind: TokenKind
    /// The authenticated client that asked, if the endpoint authenticates clients.
    public let clientID: String?
    /// When the request arrived, by the sandbox's clock.
    public let revokedAt: Date
}
