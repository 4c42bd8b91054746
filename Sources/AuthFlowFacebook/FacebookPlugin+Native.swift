public import AuthFlow

extension FacebookPlugin: NativeSignInProviding {
    /// Limited Login's `AuthenticationToken` has the app id as `aud`; it is verified offline against
    /// Limited Login's JWKS and issuer (`endpoints.jwks`, `issuer`), not through Graph.
    public var nativeAudience: NativeAudience { .nativeClient }
}
