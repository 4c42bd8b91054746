extension StoredTokens {
    /// These tokens saved over `stored` (what ``TokenStore/saveTokens(_:for:)`` keeps): access token, expiry
    /// and scope are replaced; a `nil` refresh token keeps the stored one, with the client it was issued to.
    package func replacing(_ stored: StoredTokens?) -> StoredTokens {
        var merged = StoredTokens(
            accessToken: accessToken, refreshToken: refreshToken ?? stored?.refreshToken,
            accessTokenExpiresAt: accessTokenExpiresAt, scope: scope,
            clientID: refreshToken == nil ? stored?.clientID : clientID)
        merged.dpopKey = dpopKey ?? stored?.dpopKey
        return merged
    }
}
