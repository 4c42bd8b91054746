package import AuthFlowJOSE

/// The outcome of a refresh-token grant.
public struct RefreshResult: Sendable {
    /// The configured provider name.
    package let provider: String
    /// The tokens the token endpoint returned (redacted when printed).
    public let tokens: TokenSet
    /// The refresh token to keep from now on: the new one when the provider rotated it (X), else the one
    /// presented (Apple and Google return none and the old one keeps working).
    public let refreshToken: String
    /// Whether the provider issued a new refresh token; the presented one must then be replaced (X refuses a
    /// reused one and revokes the whole grant).
    public let rotated: Bool
    /// The verified claims of the id_token returned with the refresh, when one was returned.
    package let idTokenClaims: JWTClaims?

    /// Creates a result.
    package init(
        provider: String, tokens: TokenSet, refreshToken: String, rotated: Bool, idTokenClaims: JWTClaims?
    ) {
        self.provider = provider
        self.tokens = tokens
        self.refreshToken = refreshToken
        self.rotated = rotated
        self.idTokenClaims = idTokenClaims
    }
}
