/// A provider's `endpoints:` overrides; `nil` keeps the plugin's default.
///
/// Every URL is `https://`, or `http://` on a loopback host.
public struct EndpointOverrides: Sendable, Hashable {
    /// `authorization`: the authorization endpoint.
    public let authorization: String?
    /// `token`: the token endpoint.
    public let token: String?
    /// `userinfo`: the userinfo endpoint.
    public let userinfo: String?
    /// `jwks`: the JSON Web Key Set of the id_token signing keys.
    public let jwks: String?
    /// `revocation`: the token revocation endpoint.
    public let revocation: String?
    /// `end_session`: the end-session endpoint of OpenID Connect RP-Initiated Logout (provider logout).
    public let endSession: String?

    /// Creates overrides.
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

    /// `true` when no endpoint is overridden.
    public var isEmpty: Bool {
        authorization == nil && token == nil && userinfo == nil && jwks == nil && revocation == nil && endSession == nil
    }
}
