import AuthFlowHTTP
import Synchronization

/// What the back-channel endpoints (token, revocation) of Apple, Google and X share: a form-encoded POST
/// body of sane shape, then the provider's own client authentication, then — for the code grant — a
/// single-use code redeemed under the provider's PKCE policy.
extension SandboxIdentityProvider {
    /// The form of a back-channel POST and the client it authenticated as.
    ///
    /// - Throws: ``OAuthFailure`` `invalid_request` for a body that is not a well-formed
    ///   `application/x-www-form-urlencoded` form, or the provider's `invalid_client` refusal.
    func authenticatedForm(
        _ request: HTTPServerRequest,
        authenticate: (Parameters, HTTPServerRequest) -> Result<SandboxClient, OAuthFailure>
    ) throws(OAuthFailure) -> (form: Parameters, client: SandboxClient) {
        guard let form = Parameters.form(of: request) else {
            throw .invalidRequest("expected an application/x-www-form-urlencoded POST body")
        }
        if let problem = form.shapeProblem { throw .invalidRequest(problem) }
        return (form, try authenticate(form, request).get())
    }

    /// Redeems the form's `code` for `client` (single use, bound to client, redirect URI and PKCE).
    ///
    /// - Throws: ``OAuthFailure`` `invalid_request` without a code, or the redemption's `invalid_grant`.
    func redeemCode(
        in form: Parameters, client: SandboxClient, provider: SandboxProvider, policy: SandboxState.RedemptionPolicy
    ) throws(OAuthFailure) -> (code: String, record: CodeRecord) {
        guard let code = form["code"] else { throw .invalidRequest("missing required parameter code") }
        let now = self.now
        let redeemed = state.withLock {
            $0.redeemCode(
                code, provider: provider, clientID: client.clientID, redirectURI: form["redirect_uri"],
                verifier: form["code_verifier"], policy: policy, now: now)
        }
        return (code, try redeemed.get())
    }

    /// The live grant behind the form's `refresh_token` for `client`, for the providers whose refresh tokens
    /// do not rotate (Apple, Google).
    ///
    /// - Throws: ``OAuthFailure`` `invalid_request` without a refresh token, `invalid_grant` with `refusal`
    ///   for one that is unknown, revoked or issued to another client.
    func refreshGrant(in form: Parameters, client: SandboxClient, provider: SandboxProvider, refusal: String)
        throws(OAuthFailure) -> GrantRecord
    {
        state.withLock { $0.count(provider, \.refreshGrants) }
        guard let refreshToken = form["refresh_token"] else {
            throw .invalidRequest("missing required parameter refresh_token")
        }
        guard
            let grant = state.withLock({
                $0.liveGrant(refreshToken: refreshToken, provider: provider, clientID: client.clientID)
            })
        else { throw .invalidGrant(refusal) }
        return grant
    }

    /// Runs a back-channel handler whose refusals are thrown, answering a thrown ``OAuthFailure`` in the
    /// OAuth error shape.
    func answeringOAuthFailures(_ handler: () throws(OAuthFailure) -> HTTPServerResponse) -> HTTPServerResponse {
        do throws(OAuthFailure) {
            return try handler()
        } catch {
            return error.oauthResponse()
        }
    }
}
