extension SignInError.Code {
    /// The provider has no refresh-token grant (Facebook: see ``longLivedTokenUnsupported``).
    public static let refreshUnsupported = SignInError.Code(rawValue: "refresh_unsupported")
    /// The provider has no long-lived-token exchange (only Facebook has one; the others refresh).
    public static let longLivedTokenUnsupported = SignInError.Code(rawValue: "long_lived_token_unsupported")
    /// The provider has no revocation endpoint.
    public static let revocationUnsupported = SignInError.Code(rawValue: "revocation_unsupported")
    /// The revocation endpoint answered with an error.
    public static let revocationFailed = SignInError.Code(rawValue: "revocation_failed")
}
