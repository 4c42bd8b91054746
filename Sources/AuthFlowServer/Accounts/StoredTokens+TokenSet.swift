import AuthFlow
import Foundation

extension StoredTokens {
    /// The tokens of a sign-in received at `now` as the account store keeps them (it encrypts them); a `nil`
    /// refresh token keeps the stored one.
    init(_ tokens: TokenSet, receivedAt now: Date) {
        self.init(
            accessToken: tokens.accessToken, refreshToken: tokens.refreshToken,
            accessTokenExpiresAt: tokens.expiresIn.map { now.addingTimeInterval(Double($0)) }, scope: tokens.scope)
        dpopKey = tokens.dpopKey
    }
}
