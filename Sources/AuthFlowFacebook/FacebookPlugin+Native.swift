public import AuthFlow

extension FacebookPlugin: NativeSignInProviding {
    /// Limited Login's `AuthenticationToken` has the app id as `aud`; it is verified offline against
    /// Limited Login's JWKS and issuer, not through Graph.
    public var nativeAudience: NativeAudience { .nativeClient }

    /// Limited Login: issuer `https://www.facebook.com`, keys at `limited.facebook.com` (the `www` JWKS has
    /// served stale keys; docs/providers.md, "Facebook").
    public var nativeTokenSource: (issuer: String, jwks: String)? {
        ("https://www.facebook.com", "https://limited.facebook.com/.well-known/oauth/openid/jwks/")
    }
}
