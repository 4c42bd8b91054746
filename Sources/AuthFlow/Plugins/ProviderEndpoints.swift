/// The provider URLs a sign-in uses; a plugin's defaults, overridden per key by `endpoints:` in configuration.
public struct ProviderEndpoints: Sendable, Hashable {
    /// The browser-facing authorization endpoint.
    public var authorization: String?
    /// The token endpoint (code exchange).
    public var token: String?
    /// The userinfo (profile) endpoint, called with the access token.
    public var userinfo: String?
    /// The JSON Web Key Set that signs the provider's id_tokens.
    public var jwks: String?
    /// The token revocation endpoint.
    public var revocation: String?
    /// The end-session endpoint of OpenID Connect RP-Initiated Logout 1.0 (`end_session_endpoint`), where
    /// `POST /auth/logout` with `provider_logout=1` sends the browser; `nil`: local logout only.
    public var endSession: String?
    /// The pushed authorization request endpoint of RFC 9126 (`pushed_authorization_request_endpoint`, or
    /// `endpoints.pushed_authorization_request`): where a sign-in posts its authorization request before the
    /// redirect when `par` is in effect.
    package var pushedAuthorizationRequest: String?

    /// Creates a set of endpoints; any may be absent.
    public init(
        authorization: String? = nil, token: String? = nil, userinfo: String? = nil, jwks: String? = nil,
        revocation: String? = nil, endSession: String? = nil
    ) {
        self.endSession = endSession
        self.authorization = authorization
        self.token = token
        self.userinfo = userinfo
        self.jwks = jwks
        self.revocation = revocation
    }

    /// `true` when no endpoint is set (as a provider's `endpoints:` overrides: none overridden).
    package var isEmpty: Bool {
        authorization == nil && token == nil && userinfo == nil && jwks == nil && revocation == nil && endSession == nil
            && pushedAuthorizationRequest == nil
    }

    /// These endpoints with every key that `overrides` sets replaced (a provider's `endpoints:`).
    package func overridden(by overrides: ProviderEndpoints) -> ProviderEndpoints {
        var result = ProviderEndpoints(
            authorization: overrides.authorization ?? authorization,
            token: overrides.token ?? token,
            userinfo: overrides.userinfo ?? userinfo,
            jwks: overrides.jwks ?? jwks,
            revocation: overrides.revocation ?? revocation, endSession: overrides.endSession ?? endSession)
        result.pushedAuthorizationRequest = overrides.pushedAuthorizationRequest ?? pushedAuthorizationRequest
        return result
    }
}
