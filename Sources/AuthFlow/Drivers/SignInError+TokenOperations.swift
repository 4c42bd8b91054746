package import AuthFlowJSON

extension ErrorCode where Domain == SignInError {
    /// The provider has no refresh-token grant (Facebook: see ``longLivedTokenUnsupported``).
    package static var refreshUnsupported: Self { Self(rawValue: "refresh_unsupported") }
    /// The provider has no long-lived-token exchange (only Facebook has one; the others refresh).
    package static var longLivedTokenUnsupported: Self { Self(rawValue: "long_lived_token_unsupported") }
    /// The provider has no revocation endpoint.
    package static var revocationUnsupported: Self { Self(rawValue: "revocation_unsupported") }
    /// The revocation endpoint answered with an error.
    package static var revocationFailed: Self { Self(rawValue: "revocation_failed") }
}
