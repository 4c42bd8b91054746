/// How a provider's ID tokens for native apps name the app they were issued to.
public enum NativeAudience: Sendable, Hashable {
    /// `aud` is one of `native_clients`: Apple (the bundle id), Facebook Limited Login (the app id), and
    /// OpenID Connect issuers that issue tokens to the app's own client id.
    case nativeClient
    /// `aud` is the server's `client_id` and `azp` one of `native_clients` (Google: the Android or iOS client
    /// id presents a token issued for the backend's web client).
    case serverClientPresentedByNativeClient
}

/// A plugin whose provider issues ID tokens to native apps that the app hands to its backend
/// (`POST /auth/{name}/native`). Only plugins that adopt it accept `native_clients`.
public protocol NativeSignInProviding: ProviderPlugin {
    /// How the token's `aud` (and `azp`) name the native app.
    var nativeAudience: NativeAudience { get }

    /// Whether a native sign-in may carry an authorization code, exchanged at the token endpoint with
    /// `client_id` = the token's `aud` and no `redirect_uri` (Apple: the only way to a refresh token).
    var exchangesNativeAuthorizationCode: Bool { get }

    /// Where native tokens come from when the web flow has no issuer or JWKS of its own (Facebook Limited
    /// Login): used for a provider with `native_clients` whose `issuer` and `endpoints.jwks` are not set.
    var nativeTokenSource: (issuer: String, jwks: String)? { get }
}

extension NativeSignInProviding {
    /// No code exchange.
    public var exchangesNativeAuthorizationCode: Bool { false }

    /// The web flow's issuer and JWKS.
    public var nativeTokenSource: (issuer: String, jwks: String)? { nil }
}
