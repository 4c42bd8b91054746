/// The absolute URLs of one emulated provider, to configure a relying party with.
public struct SandboxEndpoints: Sendable, Hashable {
    /// Which provider these endpoints belong to.
    public let provider: SandboxProvider
    /// The `iss` of the provider's id_tokens (the sandbox's own unless overridden); `nil` for X (no id_tokens).
    public let issuer: String?
    /// Where the browser is sent to sign in.
    public let authorization: String
    /// Where codes and refresh tokens are exchanged.
    public let token: String
    /// The user-info endpoint (Google userinfo, Facebook Graph `/me`, X `/2/users/me`); `nil` for Apple.
    public let userinfo: String?
    /// The JWKS with the id_token signing keys; `nil` for X.
    public let jwks: String?
    /// The token revocation endpoint; `nil` for Facebook.
    public let revocation: String?
    /// The OpenID Connect discovery document; `nil` for X.
    public let discovery: String?

    static func make(provider: SandboxProvider, baseURL: String, issuer: String?) -> SandboxEndpoints {
        let root = baseURL + provider.pathPrefix
        switch provider {
        case .apple:
            return SandboxEndpoints(
                provider: provider, issuer: issuer, authorization: root + "/auth/authorize",
                token: root + "/auth/token",
                userinfo: nil, jwks: root + "/auth/keys", revocation: root + "/auth/revoke",
                discovery: root + "/.well-known/openid-configuration")
        case .google:
            return SandboxEndpoints(
                provider: provider, issuer: issuer, authorization: root + "/o/oauth2/v2/auth", token: root + "/token",
                userinfo: root + "/v1/userinfo", jwks: root + "/oauth2/v3/certs", revocation: root + "/revoke",
                discovery: root + "/.well-known/openid-configuration")
        case .facebook:
            return SandboxEndpoints(
                provider: provider, issuer: issuer, authorization: root + "/v19.0/dialog/oauth",
                token: root + "/v19.0/oauth/access_token", userinfo: root + "/me",
                jwks: root + "/.well-known/oauth/openid/jwks/", revocation: nil,
                discovery: root + "/.well-known/openid-configuration")
        case .x:
            return SandboxEndpoints(
                provider: provider, issuer: nil, authorization: root + "/i/oauth2/authorize",
                token: root + "/2/oauth2/token", userinfo: root + "/2/users/me", jwks: nil,
                revocation: root + "/2/oauth2/revoke", discovery: nil)
        }
    }
}
