import AuthFlowHTTP
import AuthFlowJOSE
package import Foundation

/// The OAuth 2.0 / OpenID Connect authorization-code flow as a pure state machine.
///
/// A value type with no I/O, no clock reads and no randomness of its own: the driver (``SignIn``) passes
/// `now` and the random ``FlowSecrets`` in, performs what each event returns and feeds the outcome back.
/// Each event has its own action type, holding only what can follow it. A sign-in spans two HTTP requests,
/// so it runs as two machines:
///
/// 1. ``start(returnTo:intent:browserBinding:secrets:now:)`` → an ``AuthorizationRedirect`` (seal the
///    record into the browser's flow cookie, send the browser to the URL; nothing is stored server-side).
/// 2. ``callbackReceived(method:parameters:flowRecord:now:)`` (with the record opened from the browser's flow
///    cookie) → ``CallbackAction/markStateSpent(state:until:)`` → ``stateSpent(_:now:)`` →
///    ``StateSpentAction/exchangeCode(_:)`` → ``tokenResponseReceived(_:now:)`` →
///    ``TokenResponseAction/verifyIDToken(_:)`` → ``idTokenVerified(_:now:)`` (OpenID Connect) or
///    ``TokenResponseAction/fetchUserinfo(_:)`` → ``userinfoResponseReceived(_:now:)`` →
///    ``IdentityAction/complete(_:)``.
///
/// Each action type has a `fail` case for what the provider, the browser or the stores sent;
/// ``requestFailed(_:now:)`` reports a request that could not be made. An event the flow's state cannot
/// receive (a callback to a flow that redirected, a token response before the exchange) is a bug in the
/// driver and stops the process (a precondition), never a path input can reach. Every transition appends a
/// ``TraceEvent`` to ``trace``.
package struct OAuthFlow: Sendable {
    /// The flow's tunables: ``SignIn/Options``, which the public driver takes.
    package typealias Options = SignIn.Options

    struct Callback: Sendable {
        let method: CallbackMethod
        let parameters: CallbackParameters
        let state: String
    }

    /// A start waiting for the pushed authorization request's answer (RFC 9126).
    struct Pushing: Sendable {
        let record: FlowRecord
        let authorizationEndpoint: String
        let checks: [String]
        let sentAt: Date
    }

    struct Exchange: Sendable {
        let record: FlowRecord
        let profile: UnverifiedProfile?
    }

    enum State: Sendable {
        case idle
        case pushing(Pushing)
        case redirected
        case awaitingSpend(Callback, FlowRecord)
        case exchangingCode(Exchange)
        case verifyingIDToken(Exchange, TokenSet)
        case awaitingUserinfo(
            Exchange, TokenSet, idTokenClaims: JWTClaims?, pending: [HTTPClientRequest], received: [JSONValue])
        case finished
    }

    /// The provider this flow signs in with.
    package let provider: ResolvedProvider
    /// The flow's tunables.
    package let options: Options
    /// Every step so far.
    package internal(set) var trace: [TraceEvent] = []

    var state: State = .idle
    var stepStartedAt: Date?

    /// Creates a flow in its initial state.
    package init(provider: ResolvedProvider, options: Options = .init()) {
        self.provider = provider
        self.options = options
    }

    /// Begins a sign-in: builds the authorization URL and the flow record to seal into the flow cookie.
    ///
    /// The URL carries `response_type=code`, `client_id`, `redirect_uri`, `scope`, `state`, plus `nonce`
    /// (oidc), `code_challenge` with `code_challenge_method=S256` (pkce) and `response_mode=form_post`
    /// (form_post), then the plugin's extra parameters.
    ///
    /// - Parameters:
    ///   - returnTo: where to send the browser afterwards (validated by the caller).
    ///   - intent: login, register or link.
    ///   - browserBinding: a random value identifying the browser across its sign-ins (the server reuses it
    ///     while the browser holds a flow cookie); only its SHA-256 digest goes into the record.
    ///   - secrets: fresh random state, nonce and PKCE verifier.
    ///   - now: the current time.
    ///   - stepUp: the `max_age` and `acr_values` to ask for, if any.
    /// - Returns: the redirect.
    /// - Throws: ``SignInError`` with `invalid_request` when the binding or a secret is empty, the provider
    ///   has no authorization endpoint, or `par` is in effect for it (the pushed authorization request is a
    ///   provider round trip, which ``SignIn`` performs).
    /// - Precondition: the flow is new.
    package mutating func start(
        returnTo: String?, intent: SignInIntent, browserBinding: String, secrets: FlowSecrets, now: Date,
        stepUp: StepUp? = nil
    ) throws(SignInError) -> AuthorizationRedirect {
        guard provider.pushedAuthorizationEndpoint == nil else {
            guard case .idle = state else { unexpected("start") }
            throw failure(
                .authorizationRedirect,
                SignInError(
                    .invalidRequest,
                    "expected a provider whose authorization request needs no round trip, found par in effect "
                        + "(begin the sign-in through SignIn, which pushes the request)"),
                now: now)
        }
        switch try begin(
            returnTo: returnTo, intent: intent, browserBinding: browserBinding, secrets: secrets, now: now,
            stepUp: stepUp)
        {
        case .redirect(let redirect): return redirect
        case .pushAuthorizationRequest: unexpected("start")
        }
    }

    /// ``start(returnTo:intent:browserBinding:secrets:now:)`` for a driver that can make the pushed
    /// authorization request: with `par` in effect, the request to send, whose answer goes to
    /// ``pushedAuthorizationResponseReceived(_:now:)``; otherwise the redirect.
    ///
    /// - Throws: ``SignInError`` as `start` does (`par` aside), or `client_authentication_failed`.
    /// - Precondition: the flow is new.
    package mutating func begin(
        returnTo: String?, intent: SignInIntent, browserBinding: String, secrets: FlowSecrets, now: Date,
        stepUp: StepUp? = nil
    ) throws(SignInError) -> StartAction {
        guard case .idle = state else { unexpected("start") }
        stepStartedAt = now
        guard !browserBinding.isEmpty else {
            throw failure(
                .authorizationRedirect,
                SignInError(.invalidRequest, "expected a non-empty browser binding, found an empty one"), now: now)
        }
        guard !secrets.state.isEmpty, !secrets.nonce.isEmpty, !secrets.pkceVerifier.isEmpty else {
            throw failure(
                .authorizationRedirect,
                SignInError(.invalidRequest, "expected non-empty flow secrets, found an empty value"), now: now)
        }
        var (parameters, checks) = authorizationParameters(secrets)
        if let stepUp { try ask(stepUp, in: &parameters, checks: &checks, now: now) }
        guard let endpoint = provider.endpoints.authorization else {
            throw failure(
                .authorizationRedirect,
                SignInError(
                    .invalidRequest, "expected an authorization endpoint, found none", provider: provider.name),
                now: now)
        }
        var record = FlowRecord(
            provider: provider.name, state: secrets.state, nonce: provider.isEnabled(.oidc) ? secrets.nonce : nil,
            pkceVerifier: provider.isEnabled(.pkce) ? secrets.pkceVerifier : nil, returnTo: returnTo,
            browserBindingDigest: Self.bindingDigest(browserBinding), intent: intent, createdAt: now, stepUp: stepUp)
        if let dpopKey = secrets.dpopKey, provider.dpopAlgorithm != nil {
            // RFC 9449 §10: the code is bound to the key whose thumbprint the request names.
            record.dpopKey = dpopKey
            parameters.append(("dpop_jkt", dpopKey.thumbprint()))
            checks.append("dpop")
        }
        if provider.signsRequestObject {
            do throws(SignInError) {
                parameters = try signedRequestParameters(
                    parameters, pushed: provider.pushedAuthorizationEndpoint != nil, now: now)
            } catch {
                throw failure(.authorizationRedirect, error, now: now, checks: checks)
            }
            checks.append("request_object")
        }
        if let pushEndpoint = provider.pushedAuthorizationEndpoint {
            return try push(
                parameters, to: pushEndpoint,
                Pushing(record: record, authorizationEndpoint: endpoint, checks: checks, sentAt: now),
                now: now)
        }
        appendTrace(.authorizationRedirect, now: now, checks: checks, roundTrip: false, outcome: .succeeded)
        state = .redirected
        return .redirect(
            AuthorizationRedirect(
                url: QueryString.appending(parameters, to: endpoint), record: record, ttl: options.flowTTL))
    }

    /// The authorization request's parameters and the checks they set up: `response_type`, `client_id`,
    /// `redirect_uri`, `scope`, `state`, then `nonce` (oidc), the PKCE challenge (pkce) and `response_mode`
    /// (form_post), then the plugin's extras and `authorization_params` from the configuration (which wins over
    /// the plugin on the same name); neither may replace a parameter set before them.
    private func authorizationParameters(_ secrets: FlowSecrets) -> ([(String, String)], [String]) {
        // Room for every parameter set here plus a few extras, so appending never regrows the array.
        var parameters: [(String, String)] = []
        parameters.reserveCapacity(12)
        parameters.append(("response_type", "code"))
        parameters.append(("client_id", provider.clientID))
        parameters.append(("redirect_uri", provider.redirectURI))
        parameters.append(("scope", provider.scopes.joined(separator: " ")))
        parameters.append(("state", secrets.state))
        var checks = ["state"]
        if provider.isEnabled(.oidc) {
            parameters.append(("nonce", secrets.nonce))
            checks.append("nonce")
        }
        if provider.isEnabled(.pkce) {
            parameters.append(("code_challenge", PKCE.challenge(for: secrets.pkceVerifier)))
            parameters.append(("code_challenge_method", "S256"))
            checks.append("pkce_s256")
        }
        if provider.isEnabled(.formPost) {
            parameters.append(("response_mode", "form_post"))
            checks.append("form_post")
        }
        // Searched in place: a handful of names, not worth hashing into a set on every start.
        let taken = parameters.count
        let configured = provider.settings.authorizationParameters
        for extra in provider.about.authorizationParameters
        where !parameters[..<taken].contains(where: { $0.0 == extra.0 }) && configured[extra.0] == nil {
            parameters.append(extra)
        }
        for name in configured.keys.sorted() where !parameters[..<taken].contains(where: { $0.0 == name }) {
            parameters.append((name, configured[name] ?? ""))
        }
        return (parameters, checks)
    }

    /// Puts the step-up's `max_age` and `acr_values` into the authorization request, in place of any configured.
    ///
    /// - Throws: `invalid_step_up` for a provider without OpenID Connect: only an id_token can prove what was asked
    ///   (its `auth_time` and `acr`).
    private mutating func ask(
        _ stepUp: StepUp, in parameters: inout [(String, String)], checks: inout [String], now: Date
    ) throws(SignInError) {
        guard provider.isEnabled(.oidc) else {
            throw failure(
                .authorizationRedirect,
                SignInError(
                    .invalidStepUp, "expected a provider with OpenID Connect for max_age or acr_values, found none",
                    provider: provider.name), now: now)
        }
        parameters.removeAll { $0.0 == "max_age" || $0.0 == "acr_values" }
        parameters += stepUp.parameters
        checks.append("step_up")
    }

    /// Base64url SHA-256 of the browser-binding value, as stored in ``FlowRecord/browserBindingDigest``.
    package static func bindingDigest(_ browserBinding: String) -> String {
        Base64URL.encode(Digest.sha256(Array(browserBinding.utf8)))
    }

    // MARK: - Shared transition helpers

    mutating func appendTrace(
        _ step: TraceEvent.Step, now: Date, checks: [String], roundTrip: Bool, outcome: TraceEvent.Outcome,
        detail: String? = nil
    ) {
        let started = stepStartedAt ?? now
        trace.append(
            TraceEvent(
                step: step, startedAt: started, duration: max(0, now.timeIntervalSince(started)), checks: checks,
                providerRoundTrip: roundTrip, outcome: outcome, detail: detail))
        stepStartedAt = now
    }

    /// Ends the flow with `error`, traced at `step`.
    mutating func failure(
        _ step: TraceEvent.Step, _ error: SignInError, now: Date, checks: [String] = [], roundTrip: Bool = false,
        detail: String? = nil
    ) -> SignInError {
        var error = error
        if error.provider == nil { error.provider = provider.name }
        appendTrace(step, now: now, checks: checks, roundTrip: roundTrip, outcome: .failed(error.code), detail: detail)
        error.trace = trace
        state = .finished
        return error
    }

    /// ``failure(_:_:now:checks:roundTrip:detail:)`` as the `fail` case of the event's action type.
    mutating func fail<Action: FlowFailing>(
        _ step: TraceEvent.Step, _ error: SignInError, now: Date, checks: [String] = [], roundTrip: Bool = false,
        detail: String? = nil
    ) -> Action {
        .fail(failure(step, error, now: now, checks: checks, roundTrip: roundTrip, detail: detail))
    }

    /// An event the current state cannot receive: the driver has a bug (no input reaches here).
    func unexpected(_ event: String) -> Never {
        preconditionFailure("OAuthFlow received '\(event)' while \(state.name)")
    }
}

extension OAuthFlow.State {
    /// The state's name, for a precondition message (no values: they hold secrets).
    var name: String {
        switch self {
        case .idle: "idle"
        case .pushing: "pushing the authorization request"
        case .redirected: "redirected"
        case .awaitingSpend: "awaiting the spent-state answer"
        case .exchangingCode: "exchanging the code"
        case .verifyingIDToken: "verifying the id_token"
        case .awaitingUserinfo: "awaiting userinfo"
        case .finished: "finished"
        }
    }
}

/// An action type with a `fail` case (each event's action type).
protocol FlowFailing {
    static func fail(_ error: SignInError) -> Self
}

extension OAuthFlow.CallbackAction: FlowFailing {}
extension OAuthFlow.StateSpentAction: FlowFailing {}
extension OAuthFlow.TokenResponseAction: FlowFailing {}
extension OAuthFlow.IdentityAction: FlowFailing {}
