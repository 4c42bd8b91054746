extension SignInError.Code {
    /// The provider has no refresh-token grant (Facebook).
    public static let refreshUnsupported = SignInError.Code(rawValue: "refresh_unsupported")
    /// The provider has no revocation endpoint.
    public static let revocationUnsupported = SignInError.Code(rawValue: "revocation_unsupported")
    /// The revocation endpoint answered with an error.
    public static let revocationFailed = SignInError.Code(rawValue: "revocation_failed")
}
