import AuthFlowHTTP
import AuthFlowJOSE
public import Foundation

extension OAuthFlow {
    /// The provider redirected the browser back: checks the parameters' shape and asks for the flow record.
    ///
    /// - Parameters:
    ///   - method: the callback's HTTP method.
    ///   - parameters: the query (GET) or form body (POST) parameters.
    ///   - browserBinding: the binding value the browser presented (e.g. the flow cookie), or `nil`.
    ///   - now: the current time.
    /// - Returns: ``Action/takeFlowRecord(state:)``, or ``Action/fail(_:)`` with `invalid_state` when the
    ///   callback has no single `state`.
    public mutating func callbackReceived(
        method: CallbackMethod, parameters: CallbackParameters, browserBinding: String?, now: Date
    ) -> Action {
        guard case .idle = state else { return unexpected("callback received", now: now) }
        stepStartedAt = now
        let count = parameters.count("state")
        guard count == 1, let value = parameters.value("state"), !value.isEmpty, value.utf8.count <= 512 else {
            let found = count == 0 ? "none" : count == 1 ? "an empty or oversized one" : "\(count)"
            return fail(
                .callback, SignInError(.invalidState, "expected exactly one state parameter, found \(found)"),
                now: now)
        }
        state = .awaitingFlowRecord(
            Callback(method: method, parameters: parameters, state: value, browserBinding: browserBinding))
        return .takeFlowRecord(state: value)
    }

    /// The flow store answered the take: checks the record, the method, the browser binding and the
    /// provider's response, then builds the token request.
    ///
    /// Refusals, in order: `invalid_state` (no record: unknown, used or expired), `state_expired`,
    /// `state_provider_mismatch`, `wrong_callback_method`, `browser_binding_mismatch`, `issuer_mismatch` (an
    /// RFC 9207 `iss` parameter naming another issuer), `provider_error`
    /// (the provider sent `error=…`), `missing_code`, `client_authentication_failed`.
    ///
    /// - Returns: ``Action/exchangeCode(_:)`` or ``Action/fail(_:)``.
    public mutating func flowRecordTaken(_ record: FlowRecord?, now: Date) -> Action {
        guard case .awaitingFlowRecord(let callback) = state else { return unexpected("flow record taken", now: now) }
        var checks: [String] = []
        guard let record, record.state == callback.state else {
            return fail(
                .callback,
                SignInError(
                    .invalidState, "expected the state of a pending sign-in, found one that is unknown, used or expired"
                ),
                now: now)
        }
        checks.append("state")
        let age = now.timeIntervalSince(record.createdAt)
        guard age <= options.flowTTL else {
            return fail(
                .callback,
                SignInError(
                    .stateExpired,
                    "expected a sign-in begun within \(Int(options.flowTTL)) s, found one begun \(Int(age)) s ago"),
                now: now, checks: checks)
        }
        checks.append("state_fresh")
        guard record.provider == provider.name else {
            return fail(
                .callback,
                SignInError(
                    .stateProviderMismatch,
                    "expected a state issued for provider '\(provider.name)', found one issued for another provider"),
                now: now, checks: checks)
        }
        checks.append("state_provider")
        guard callback.method == provider.callbackMethod else {
            return fail(
                .callback,
                SignInError(
                    .wrongCallbackMethod,
                    "expected the callback as \(provider.callbackMethod.rawValue), found \(callback.method.rawValue)"),
                now: now, checks: checks)
        }
        checks.append("callback_method")
        let presented = callback.browserBinding.map(Self.bindingDigest) ?? ""
        guard callback.browserBinding?.isEmpty == false,
            ConstantTime.equals(presented, record.browserBindingDigest)
        else {
            let found = callback.browserBinding == nil ? "none" : "a different one"
            return fail(
                .callback,
                SignInError(
                    .browserBindingMismatch,
                    "expected the browser binding of the browser that began the sign-in, found \(found)"),
                now: now, checks: checks)
        }
        checks.append("browser_binding")
        // RFC 9207: an authorization server that names itself in the response must be the one this flow
        // went to; checked before anything else of the response (an error response too) is believed.
        // A provider that promises `iss` (its discovery document advertises it) must send it.
        let issuers = callback.parameters.count("iss")
        if !provider.acceptedIssuers.isEmpty, issuers > 0 || provider.plugin.sendsIssuerInAuthorizationResponse {
            guard issuers == 1, let issuer = callback.parameters.value("iss"), provider.acceptedIssuers.contains(issuer)
            else {
                let expected = provider.issuer.map { "'\($0)'" } ?? "this provider's issuer"
                let found = issuers == 0 ? "none" : issuers > 1 ? "\(issuers) iss parameters" : "another issuer"
                return fail(
                    .callback,
                    SignInError(
                        .issuerMismatch,
                        "expected the authorization response from \(expected) (iss parameter, RFC 9207), found \(found)",
                        provider: provider.name),
                    now: now, checks: checks)
            }
            checks.append("iss_parameter")
        }
        if callback.parameters.count("error") > 0 {
            let code = ProviderErrorCode.sanitize(callback.parameters.value("error"))
            return fail(
                .callback,
                SignInError(
                    .providerError, "expected an authorization code, found the provider error '\(code ?? "unknown")'",
                    providerError: code),
                now: now, checks: checks)
        }
        checks.append("no_provider_error")
        // Unsigned extras are read only once the callback is known to belong to this browser's flow.
        let profile: UnverifiedProfile?
        do throws(SignInError) {
            profile = try provider.plugin.unverifiedProfile(from: callback.parameters, provider: provider)
        } catch {
            var failure = error
            failure.provider = failure.provider ?? provider.name
            return fail(.callback, failure, now: now, checks: checks)
        }
        let codes = callback.parameters.count("code")
        guard codes == 1, let code = callback.parameters.value("code"), !code.isEmpty else {
            return fail(
                .callback,
                SignInError(
                    .missingCode,
                    "expected exactly one non-empty code parameter, found \(codes == 0 ? "none" : "\(codes)")"),
                now: now, checks: checks)
        }
        checks.append("code")
        let request: HTTPClientRequest
        do throws(SignInError) {
            request = try provider.tokenRequest(
                code: code, pkceVerifier: record.pkceVerifier, now: now,
                clientSecretLifetime: options.clientSecretLifetime)
        } catch {
            return fail(.callback, error, now: now, checks: checks)
        }
        appendTrace(.callback, now: now, checks: checks, roundTrip: false, outcome: .succeeded)
        state = .exchangingCode(Exchange(record: record, profile: profile))
        return .exchangeCode(TokenExchange(request: request, unverifiedProfile: profile))
    }

    /// A request the driver performed failed (transport error, JWKS unavailable, store failure).
    ///
    /// - Returns: ``Action/fail(_:)`` with `error`.
    public mutating func requestFailed(_ error: SignInError, now: Date) -> Action {
        let step: TraceEvent.Step
        var roundTrip = true
        switch state {
        case .awaitingFlowRecord:
            step = .callback
            roundTrip = false
        case .exchangingCode: step = .tokenExchange
        case .awaitingKeys: step = .jwks
        case .awaitingUserinfo: step = .userinfo
        case .idle, .redirected, .finished: return unexpected("request failed", now: now)
        }
        return fail(step, error, now: now, roundTrip: roundTrip)
    }
}
