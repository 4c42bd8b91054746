import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE

/// `POST /auth/logout` and `GET /auth/logged-out` (where a provider logout comes back).
struct LogoutRoutes: SessionUsing {
    let sessions: SessionService
    /// Where a provider logout's state is spent, once for every instance.
    let flows: any FlowStore
    let providers: ProviderDirectory
    let options: SignInServer.Options
    let clock: any WallClock
    let cookies: CookiePolicy
    let returnToPolicy: ReturnToPolicy
    let providerLogout: ProviderLogout?
    let logger: any ServerLogger

    /// `POST /auth/logout`: ends the session server-side and clears the cookie; 204, or 302 to a valid
    /// `return_to` (query or form field). With `everywhere=1` (query or form field) it ends every session of the
    /// signed-in user (``SessionService/endEverySession(of:changes:)``).
    ///
    /// With `provider_logout=1` (query or form field) and a cookie session of a provider with an end-session
    /// endpoint, the session ends first, then the answer is 303 to that endpoint (OpenID Connect RP-Initiated
    /// Logout 1.0) with `id_token_hint`, `client_id`, `post_logout_redirect_uri` and a sealed `state` carrying
    /// the `return_to`, which `GET /auth/logged-out` follows. Without such an endpoint: the local logout only.
    ///
    /// With `Authorization: Bearer` it ends that bearer session (of its own kind only) and sets no cookie. What
    /// ends is noted in `changes`.
    func logout(_ request: HTTPServerRequest, changes: SessionChangeLog) async throws(ServerError)
        -> HTTPServerResponse
    {
        let returnTo = try returnToPolicy.validate(try RequestParameters.returnToParameter(request))
        let atProvider = try RequestParameters.flagParameter(request, "provider_logout")
        let everywhere = try RequestParameters.flagParameter(request, "everywhere")
        let credential = try sessions.credential(request)
        var ended: SessionRecord?
        if let credential { ended = try await sessions.end(credential, everywhere: everywhere, changes: changes) }
        var response: HTTPServerResponse = returnTo.map { .redirect(to: $0, status: 302) } ?? .empty(status: 204)
        if atProvider, case .cookie(let id) = credential, let ended,
            let url = try providerLogoutURL(request, sessionID: id, record: ended, returnTo: returnTo)
        {
            response = .redirect(to: url, status: 303)
        }
        if case .bearer = credential {
        } else {
            response.addCookie(cookies.clearedSessionCookie())
            if let providerLogout { response.addCookie(providerLogout.clearedHintCookie()) }
        }
        return response
    }

    /// The provider's end-session URL for the ended session `record`, or `nil` when its provider has no
    /// end-session endpoint (then the logout is local only).
    func providerLogoutURL(
        _ request: HTTPServerRequest, sessionID: String, record: SessionRecord, returnTo: String?
    ) throws(ServerError) -> String? {
        guard let providerLogout, let provider = providers[record.identity.provider],
            let endpoint = provider.endpoints.endSession, !endpoint.isEmpty
        else { return nil }
        let state: String
        do throws(JOSEError) {
            state = try providerLogout.state(provider: provider.name, returnTo: returnTo ?? "/", now: clock.now())
        } catch {
            throw ServerError(.internalError, "expected to seal the logout state, found \(error.code)", status: 500)
        }
        logger.log(.info, "provider logout", metadata: ["provider": provider.name])
        return ProviderLogout.endSessionURL(
            endpoint, idToken: providerLogout.idToken(in: request, sessionID: sessionID), clientID: provider.clientID,
            postLogoutRedirectURI: provider.settings.postLogoutRedirectURI
                ?? options.publicURL + options.pathPrefix + "/logged-out",
            state: state)
    }

    /// `GET /auth/logged-out?state=…`: where the provider sends the browser after a provider logout; 303 to the
    /// `return_to` the logout carried (checked again against `server.allowed_return_to`), `/` without one. Each
    /// state is accepted once, on any instance sharing the flow store.
    ///
    /// Refused (400, an HTML page for a browser): no or several `state` (`invalid_logout_state`), a state not
    /// sealed here (`invalid_logout_state`), older than 10 minutes (`logout_state_expired`), already used
    /// (`logout_state_used`); 503 `store_unavailable` when the flow store does not answer (nothing is spent, the
    /// browser may come back with the same state).
    func loggedOut(_ request: HTTPServerRequest) async throws(ServerError) -> HTTPServerResponse {
        let states = request.query.filter { $0.0 == "state" }.map(\.1)
        guard let providerLogout, states.count == 1 else {
            throw ServerError(
                .invalidLogoutState,
                "expected one state parameter (sent back by the provider after a logout), found \(states.count)",
                status: 400)
        }
        let opened = try providerLogout.open(states[0], now: clock.now())
        let returnTo = try returnToPolicy.validate(opened.returnTo) ?? "/"
        try await spend(opened)
        var response = HTTPServerResponse.redirect(to: returnTo, status: 303)
        response.headers["Cache-Control"] = "no-store"
        return response
    }

    /// Spends the opened logout state in the flow store, which every instance shares.
    ///
    /// - Throws: ``ServerError`` `logout_state_used` (400) when it was spent already, `store_unavailable` (503,
    ///   store `flows`) when the flow store fails.
    private func spend(_ opened: ProviderLogout.Opened) async throws(ServerError) {
        let firstUse: Bool
        do throws(FlowStoreError) {
            firstUse = try await flows.markSpent(state: opened.spentKey, until: opened.expiresAt)
        } catch {
            var failure = ServerError(
                .storeUnavailable,
                "expected the flow store to record the logout state as used, found \(error.code.rawValue)",
                status: 503)
            failure.store = "flows"
            throw failure
        }
        guard firstUse else {
            throw ServerError(
                .logoutStateUsed,
                "expected a logout state not used before, found one that already brought a browser back (each is "
                    + "accepted once)", status: 400)
        }
    }
}
