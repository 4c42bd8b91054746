import AuthFlow
import AuthFlowHTTP
import Foundation

/// `GET /auth/{provider}/login|register|link`: the start of a sign-in.
struct LoginRoutes: SessionUsing {
    let sessions: SessionService
    let providers: ProviderDirectory
    let options: SignInServer.Options
    let signIn: SignIn
    let flowCookie: ServerFlowCookies?
    let returnToPolicy: ReturnToPolicy
    let rateLimiter: RateLimiter
    let pendingProfiles: PendingProfiles
    let traces: TraceLog
    let logger: any ServerLogger

    static let signupDisabled = ServerError(AccountRefusal.signupDisabled)

    static let noFlowCookieKey = ServerError(
        .flowCookieUnavailable,
        "expected server.secret of at least 32 bytes to key the flow cookie, found a shorter one", status: 500)

    /// Validates `return_to` and the step-up (`max_age`, `acr_values`: sent to the provider, checked against the
    /// id_token at the callback; 400 `invalid_step_up` when malformed), seals the flow into a flow cookie of its own (nothing is stored server-side) and
    /// redirects (302) to the provider.
    ///
    /// Rate-limited per client address (`server.rate_limits.starts`). `link` needs a session (401
    /// `not_signed_in` otherwise); the identity is attached to the user that is signed in when the callback
    /// arrives.
    func beginSignIn(_ request: HTTPServerRequest, provider name: String, intent: SignInIntent)
        async throws(ServerError) -> HTTPServerResponse
    {
        try providers.require(name)
        try await rateLimiter.check(request, kind: .start)
        let (returnTo, stepUp) = try parameters(of: request)
        if intent == .link {
            _ = try await requireSession(request)
        } else if intent == .register, !options.signup {
            throw Self.signupDisabled
        }
        guard let flowCookie else { throw Self.noFlowCookieKey }
        let start: SignInStart
        do throws(SignInError) {
            start = try await signIn.begin(
                provider: name, returnTo: returnTo, intent: intent, browserBinding: signIn.newBrowserBinding(),
                stepUp: stepUp)
        } catch {
            throw ServerError(error)
        }
        let setCookie = try flowCookie.setCookie(for: start.record, lifetime: options.flow.flowTTL)
        // The browser's flow cookies are read from their names once, for the carry and the evictions.
        let held = flowCookie.held(in: request)
        if providers[name]?.keepsUnverifiedProfile == true,
            let earlier = flowCookie.newestRecord(in: request, held: held.examined, provider: name)
        {
            await carryPendingProfile(from: earlier, to: start.record)
        }
        return redirect(to: start, provider: name, intent: intent, setting: setCookie, held: held, in: flowCookie)
    }

    /// Whether ``beginSignInAtOnce(_:provider:intent:)`` answers a start of provider `name` with `intent`: one
    /// that waits for nothing. Not a `link` (it reads the session from the store), not a provider that keeps
    /// Apple's first-login name (carried in the pending-profile store), not one with a pushed authorization request
    /// (a provider round trip), and only while the rate limit is decided in memory.
    func beginsAtOnce(provider name: String, intent: SignInIntent) -> Bool {
        guard intent != .link, let provider = providers[name], !provider.keepsUnverifiedProfile else { return false }
        return signIn.beginsAtOnce(provider: name) && rateLimiter.decidesAtOnce
    }

    /// ``beginSignIn(_:provider:intent:)`` without waiting, for a start that ``beginsAtOnce(provider:intent:)``:
    /// the same checks in the same order, the same response and the same errors.
    func beginSignInAtOnce(_ request: HTTPServerRequest, provider name: String, intent: SignInIntent)
        throws(ServerError) -> HTTPServerResponse
    {
        try providers.require(name)
        try rateLimiter.checkAtOnce(request, kind: .start)
        let (returnTo, stepUp) = try parameters(of: request)
        if intent == .register, !options.signup { throw Self.signupDisabled }
        guard let flowCookie else { throw Self.noFlowCookieKey }
        let start = try Result { () throws(SignInError) in
            try signIn.beginAtOnce(
                provider: name, returnTo: returnTo, intent: intent, browserBinding: signIn.newBrowserBinding(),
                stepUp: stepUp)
        }.mapError(ServerError.init).get()
        let setCookie = try flowCookie.setCookie(for: start.record, lifetime: options.flow.flowTTL)
        return redirect(
            to: start, provider: name, intent: intent, setting: setCookie, held: flowCookie.held(in: request),
            in: flowCookie)
    }

    /// The validated `return_to` and step-up (`max_age`, `acr_values`) of a start.
    private func parameters(of request: HTTPServerRequest) throws(ServerError) -> (String?, StepUp?) {
        let returnTo = try returnToPolicy.validate(try RequestParameters.returnToParameter(request))
        return (returnTo, try RequestParameters.stepUpParameters(request))
    }

    /// The start's redirect (302) to the provider, clearing the browser's oldest flow cookies and setting its own.
    private func redirect(
        to start: SignInStart, provider name: String, intent: SignInIntent, setting setCookie: String,
        held: (examined: [FlowCookies.Held], others: [String]), in flowCookie: ServerFlowCookies
    ) -> HTTPServerResponse {
        if options.keepsTraces { traces.rememberStart(state: start.state, trace: start.trace) }
        ActiveSpan.recordFlow(start.trace)
        // The event's metadata is only built when debug events are written (not by default).
        if logger.isEnabled(.debug) {
            logger.log(.debug, "sign-in started", metadata: ["provider": name, "intent": intent.rawValue])
        }
        var response = HTTPServerResponse.redirect(to: start.redirectURL, status: 302)
        // Room for the cookies and the fields every response gets, so adding them does not regrow the storage.
        response.headers.reserveCapacity(8)
        for cleared in flowCookie.evictions(held, providers: providers.names) { response.addCookie(cleared) }
        response.addCookie(setCookie)
        return response
    }

    /// Apple sends a first-login name once. When an earlier sign-in of this browser parked one and then
    /// failed (its flow cookie is still here), the name moves to the new flow, for no longer than it lives.
    /// Only the browser's newest earlier flow of the provider is asked (one store call per start): each start
    /// moves the name on, so the newest earlier flow is the one holding it.
    func carryPendingProfile(from previous: FlowRecord, to record: FlowRecord) async {
        guard previous.state != record.state else { return }
        let key = PendingProfiles.key(provider: record.provider, state: previous.state)
        guard let pending = await pendingProfiles.take(key) else { return }
        let expiry = record.createdAt.addingTimeInterval(min(options.pendingProfileTTL, options.flow.flowTTL))
        await pendingProfiles.restore(
            PendingProfile(
                key: PendingProfiles.key(provider: record.provider, state: record.state),
                provider: pending.provider, firstName: pending.firstName, lastName: pending.lastName,
                expiresAt: expiry))
    }
}
