package import Foundation

/// One call to an emulated revocation endpoint, as observed by the sandbox (for tests).
package struct SandboxRevocation: Sendable, Hashable {
    /// What the revoked token turned out to be.
    package enum TokenKind: String, Sendable, Hashable {
        /// A live or expired access token issued by the sandbox.
        case accessToken = "access_token"
        /// A refresh token issued by the sandbox.
        case refreshToken = "refresh_token"
        /// A value the sandbox never issued (Apple still answers 200).
        case unknown
    }

    /// The token exactly as the client sent it.
    package let token: String
    /// The `token_type_hint` the client sent, if any.
    package let tokenTypeHint: String?
    /// What the token was.
    package let kind: TokenKind
    /// The authenticated client that asked, if the endpoint authenticates clients.
    package let clientID: String?
    /// When the request arrived, by the sandbox's clock.
    package let revokedAt: Date
}
