/// The absolute URLs of one emulated provider, to configure a relying party with.
public struct SandboxEndpoints: Sendable, Hashable {
    /// Which provider these endpoints belong to.
    package let provider: SandboxProvider
    /// The `iss` of the provider's id_tokens (the sandbox's own unless overridden); `nil` for X (no id_tokens).
    public let issuer: String?
    /// Where the browser is sent to sign in.
    public let authorization: String
    /// Where codes and refresh tokens are exchanged.
    public let token: String
    /// The user-info endpoint (Google userinfo, Facebook Graph `/me`, X `/2/users/me`, Microsoft's OIDC userinfo,
    /// GitHub's `/user`); `nil` for Apple.
    public let userinfo: String?
    /// The JWKS with the id_token signing keys; `nil` for X.
    public let jwks: String?
    /// The token revocation endpoint; `nil` for Facebook and Microsoft. GitHub's is the grant deletion URL with a
    /// literal `{client_id}` placeholder (`DELETE …/applications/{client_id}/grant`, HTTP Basic).
    package let revocation: String?
    /// The OpenID Connect discovery document; `nil` for X.
    package let discovery: String?

    /// The OpenID Connect RP-initiated logout endpoint (`end_session_endpoint`); `nil` when the provider has none.
    package let endSession: String?

    init(
        provider: SandboxProvider, issuer: String?, authorization: String, token: String, userinfo: String?,
        jwks: String?, revocation: String?, discovery: String?, endSession: String? = nil
    ) {
        self.provider = provider
        self.issuer = issuer
        self.authorization = authorization
        self.token = token
        self.userinfo = userinfo
        self.jwks = jwks
        self.revocation = revocation
        self.discovery = discovery
        self.endSession = endSession
    }
}
