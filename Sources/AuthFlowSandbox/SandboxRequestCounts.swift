/// How many requests one emulated provider has received, per endpoint (for tests, e.g. JWKS caching).
package struct SandboxRequestCounts: Sendable, Hashable {
    /// Requests to the authorization endpoint.
    package var authorization = 0
    /// Submissions of the consent form.
    package var consent = 0
    /// Requests to the token endpoint.
    package var token = 0
    /// Requests to the userinfo / Graph `/me` / `/2/users/me` endpoint.
    package var userinfo = 0
    /// Fetches of the JWKS.
    package var jwks = 0
    /// Requests to the revocation endpoint.
    package var revocation = 0
    /// Fetches of the discovery document.
    package var discovery = 0
    /// Requests to the RP-initiated logout endpoint (Microsoft's `end_session_endpoint`).
    package var endSession = 0
    /// Refresh-token grants among the ``SandboxRequestCounts/token`` requests (answered or refused), e.g. to
    /// prove that concurrent refreshes of one identity reached the provider once.
    package var refreshGrants = 0

    /// All zero.
    package init() {}

    /// The sum over every endpoint (``SandboxRequestCounts/refreshGrants`` are already counted in
    /// ``SandboxRequestCounts/token``).
    package var total: Int { authorization + consent + token + userinfo + jwks + revocation + discovery + endSession }
}
