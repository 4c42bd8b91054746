/// The answer of ``TokenStore/beginTokenRefresh(for:holder:leaseDuration:)``: whether the caller may refresh
/// the identity's tokens now, with the tokens stored at that instant.
public enum RefreshLease: Sendable, Hashable {
    /// The caller now holds the identity's refresh lease: it alone may redeem `tokens.refreshToken`, then
    /// calls ``TokenStore/completeTokenRefresh(_:for:holder:)`` (or
    /// ``TokenStore/releaseTokenRefresh(for:holder:)`` when the refresh failed).
    case acquired(StoredTokens)
    /// Another holder's lease has not expired: it is refreshing now. `tokens` are the stored tokens; wait
    /// and ask again.
    case held(StoredTokens)

    /// The stored tokens either way.
    package var tokens: StoredTokens {
        switch self {
        case .acquired(let tokens), .held(let tokens): return tokens
        }
    }
}
