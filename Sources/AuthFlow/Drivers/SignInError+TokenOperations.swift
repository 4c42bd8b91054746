public import AuthFlowJSON

extension ErrorCode where Domain == SignInError {
    /// The provider has no refresh-token grant (Facebook: see ``longLivedTokenUnsupported``).
    public static var refreshUnsupported: Self { Self(rawValue: "refresh_unsupported") }
    /// The provider has no long-lived-token exchange (only Facebook has one; the others refresh).
    public static var longLivedTokenUnsupported: Self { Self(rawValue: "long_lived_token_unsupported") }
    /// The provider has no revocation endpoint.
    public static var revocationUnsupported: Self { Self(rawValue: "revocation_unsupported") }
    /// The revocation endpoint answered with an error.
    public static var revocationFailed: Self { Self(rawValue: "revocation_failed") }
}
