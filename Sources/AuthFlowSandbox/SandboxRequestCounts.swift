/// How many requests one emulated provider has received, per endpoint (for tests, e.g. JWKS caching).
public struct SandboxRequestCounts: Sendable, Hashable {
    /// Requests to the authorization endpoint.
    public var authorization = 0
    /// Submissions of the consent form.
    public var consent = 0
    /// Requests to the token endpoint.
    public var token = 0
    /// Requests to the userinfo / Graph `/me` / `/2/users/me` endpoint.
    public var userinfo = 0
    /// Fetches of the JWKS.
    public var jwks = 0
    /// Requests to the revocation endpoint.
    public var revocation = 0
    /// Fetches of the discovery document.
    public var discovery = 0
    /// Requests to the RP-initiated logout endpoint (Microsoft's `end_session_endpoint`).
    public var endSession = 0
    /// Refresh-token grants among the ``SandboxRequestCounts/token`` requests (answered or refused), e.g. to
    /// prove that concurrent refreshes of one identity reached the provider once.
    public var refreshGrants = 0

    /// All zero.
    public init() {}

    /// The sum over every endpoint (``SandboxRequestCounts/refreshGrants`` are already counted in
    /// ``SandboxRequestCounts/token``).
    public var total: Int { authorization + consent + token + userinfo + jwks + revocation + discovery + endSession }
}
