/// Which kind of token a revocation request carries (RFC 7009 §2.1 `token_type_hint`).
public enum TokenTypeHint: String, Sendable, Hashable, CaseIterable {
    /// An access token.
    case accessToken = "access_token"
    /// A refresh token.
    case refreshToken = "refresh_token"
}
