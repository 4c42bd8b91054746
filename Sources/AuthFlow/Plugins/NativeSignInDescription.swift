/// How a provider's ID tokens for native apps name the app they were issued to.
package enum NativeAudience: Sendable, Hashable {
    /// `aud` is one of `native_clients`: Apple (the bundle id), Facebook Limited Login (the app id), and
    /// OpenID Connect issuers that issue tokens to the app's own client id.
    case nativeClient
    /// `aud` is the server's `client_id` and `azp` one of `native_clients` (Google: the Android or iOS client
    /// id presents a token issued for the backend's web client).
    case serverClientPresentedByNativeClient
}

/// How a provider's ID tokens for native apps are verified (`POST /auth/{name}/native`), in a
/// ``ProviderDescription``; only a plugin that describes it accepts `native_clients`.
package struct NativeSignInDescription: Sendable {
    /// How the tokens name the app they were issued to.
    package var audience: NativeAudience
    /// Whether the app may send an authorization code with the token (Apple), which is exchanged at the token
    /// endpoint like a web sign-in's.
    package var exchangesAuthorizationCode: Bool
    /// The issuer and JWKS of native tokens when the web flow verifies none (Facebook Limited Login); `nil`
    /// uses the provider's own.
    package var tokenSource: (issuer: String, jwks: String)?

    /// Describes native sign-in.
    package init(
        audience: NativeAudience, exchangesAuthorizationCode: Bool = false,
        tokenSource: (issuer: String, jwks: String)? = nil
    ) {
        self.audience = audience
        self.exchangesAuthorizationCode = exchangesAuthorizationCode
        self.tokenSource = tokenSource
    }
}
