public import AuthFlowJSON

/// Why ``TokenRefresher`` could not hand out an access token.
///
/// Messages never contain a token; ``storeError`` and ``signInError`` carry the underlying failure.
public struct TokenRefreshError: CodedError, Sendable, Equatable {
    /// A stable error code.
    public typealias Code = ErrorCode<TokenRefreshError>

    /// The stable code.
    public let code: Code
    /// What was expected and what was found; never a token.
    public let message: String
    /// The provider name of the identity.
    public let provider: String
    /// The store failure behind `store_failed`.
    public var storeError: StoreError?
    /// The refresh failure behind `refresh_failed` (e.g. `token_endpoint_error` with `invalid_grant`).
    public var signInError: SignInError?

    /// Creates an error; keep `message` free of tokens.
    package init(
        _ code: Code, _ message: String, provider: String, storeError: StoreError? = nil,
        signInError: SignInError? = nil
    ) {
        self.code = code
        self.message = message
        self.provider = provider
        self.storeError = storeError
        self.signInError = signInError
    }

    /// `code: message (provider: …)`.
    public var description: String { "\(code.rawValue): \(message) (provider: \(provider))" }
}

extension ErrorCode where Domain == TokenRefreshError {
    /// No tokens are stored for the identity (never signed in with tokens kept, or they were deleted).
    package static var noTokens: Self { Self(rawValue: "no_tokens") }
    /// The stored access token is unusable and no refresh token is stored to get another.
    package static var noRefreshToken: Self { Self(rawValue: "no_refresh_token") }
    /// Another caller held the refresh lease for longer than the refresher waits.
    package static var refreshWaitTimedOut: Self { Self(rawValue: "refresh_wait_timed_out") }
    /// The provider refused or failed the refresh; see ``TokenRefreshError/signInError``.
    package static var refreshFailed: Self { Self(rawValue: "refresh_failed") }
    /// The account store failed; see ``TokenRefreshError/storeError``.
    package static var storeFailed: Self { Self(rawValue: "store_failed") }
}
