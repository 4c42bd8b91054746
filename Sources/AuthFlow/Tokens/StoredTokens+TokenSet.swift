package import Foundation

extension StoredTokens {
    /// The tokens of a token response worth keeping: access and refresh token, the access token's expiry
    /// (`receivedAt` plus `expires_in`), and the scope. The id_token is not kept.
    package init(_ tokens: TokenSet, receivedAt: Date) {
        self.init(
            accessToken: tokens.accessToken, refreshToken: tokens.refreshToken,
            accessTokenExpiresAt: tokens.expiresIn.map { receivedAt.addingTimeInterval(Double($0)) },
            scope: tokens.scope)
        dpopKey = tokens.dpopKey
    }
}
