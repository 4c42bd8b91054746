import AuthFlowHTTP
import AuthFlowJOSE
package import Foundation

extension OAuthFlow {
    /// The provider redirected the browser back: checks the callback's state against the flow record the
    /// browser presented in its flow cookie, and asks for the state to be marked spent.
    ///
    /// Nothing is spent unless the cookie matched: a callback carrying someone else's state without their
    /// cookie (or with a cookie of another sign-in) is refused here and leaves their sign-in intact.
    /// Refusals, in order: `invalid_state` (no single state parameter), `browser_binding_mismatch` (no flow
    /// cookie for this state, or one of another sign-in), `state_expired`, `state_provider_mismatch`,
    /// `wrong_callback_method`.
    ///
    /// - Parameters:
    ///   - method: the callback's HTTP method.
    ///   - parameters: the query (GET) or form body (POST) parameters.
    ///   - flowRecord: the record opened from the browser's flow cookie (``FlowRecordSeal``), or `nil` when
    ///     the browser sent none that opened.
    ///   - now: the current time.
    /// - Returns: ``CallbackAction/markStateSpent(state:until:)`` or ``CallbackAction/fail(_:)``.
    /// - Precondition: the flow is new (a callback runs on a flow of its own, not the one that redirected).
    package mutating func callbackReceived(
        method: CallbackMethod, parameters: CallbackParameters, flowRecord: FlowRecord?, now: Date
    ) -> CallbackAction {
        guard case .idle = state else { unexpected("callback received") }
        stepStartedAt = now
        let count = parameters.count("state")
        guard count == 1, let value = parameters.value("state"), !value.isEmpty, value.utf8.count <= 512 else {
            let found = count == 0 ? "none" : count == 1 ? "an empty or oversized one" : "\(count)"
            return fail(
                .callback, SignInError(.invalidState, "expected exactly one state parameter, found \(found)"),
                now: now)
        }
        var checks = ["state"]
        guard let record = flowRecord, ConstantTime.equals(record.state, value) else {
            let found = flowRecord == nil ? "none" : "the cookie of another sign-in"
            return fail(
                .callback,
                SignInError(
                    .browserBindingMismatch,
                    "expected the flow cookie of the browser that began this sign-in, found \(found)"),
                now: now, checks: checks)
        }
        checks.append("browser_binding")
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
        guard method == provider.callbackMethod else {
            return fail(
                .callback,
                SignInError(
                    .wrongCallbackMethod,
                    "expected the callback as \(provider.callbackMethod.rawValue), found \(method.rawValue)"),
                now: now, checks: checks)
        }
        state = .awaitingSpend(Callback(method: method, parameters: parameters, state: value), record)
        // Spent states are kept for as long as a cookie carrying the record could still be accepted.
        return .markStateSpent(state: value, until: record.createdAt.addingTimeInterval(options.flowTTL + 1))
    }

    /// The spent-state set answered: a state spent before (a replayed callback) is refused with
    /// `invalid_state`; otherwise checks the provider's response and builds the token request.
    ///
    /// Refusals after `invalid_state`, in order: `issuer_mismatch` (an RFC 9207 `iss` parameter naming
    /// another issuer), `provider_error` (the provider sent `error=…`), `missing_code`,
    /// `client_authentication_failed`.
    ///
    /// - Parameters:
    ///   - firstUse: what `FlowStore/markSpent(state:until:)` returned.
    ///   - now: the current time.
    /// - Returns: ``StateSpentAction/exchangeCode(_:)`` or ``StateSpentAction/fail(_:)``.
    /// - Precondition: the flow answered its callback with ``CallbackAction/markStateSpent(state:until:)``.
    package mutating func stateSpent(_ firstUse: Bool, now: Date) -> StateSpentAction {
        guard case .awaitingSpend(let callback, let record) = state else { unexpected("state spent") }
        var checks = ["state", "browser_binding", "state_fresh", "state_provider", "callback_method"]
        guard firstUse else {
            return fail(
                .callback,
                SignInError(
                    .invalidState, "expected the state of a pending sign-in, found one that was already used"),
                now: now, checks: checks)
        }
        checks.append("state_unused")
        do throws(SignInError) {
            if try checkIssuerParameter(callback.parameters) { checks.append("iss_parameter") }
        } catch {
            return fail(.callback, error, now: now, checks: checks)
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
            profile = try provider.plugin.identity.unverifiedProfile(from: callback.parameters, provider: provider)
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

    /// RFC 9207: an authorization server that names itself in the response must be the one this flow went to;
    /// checked before anything else of the response (an error response too) is believed. A provider that
    /// promises `iss` (its discovery document advertises it) must send it.
    ///
    /// - Returns: whether the parameter was checked.
    /// - Throws: ``SignInError`` with `issuer_mismatch`.
    private func checkIssuerParameter(_ parameters: CallbackParameters) throws(SignInError) -> Bool {
        let issuers = parameters.count("iss")
        // `profile: fapi2` requires the parameter whatever discovery says (FAPI 2.0 Security Profile §5.3.2.2).
        let required = provider.plugin.sendsIssuerInAuthorizationResponse || provider.settings.profile == .fapi2
        guard !provider.acceptedIssuers.isEmpty, issuers > 0 || required else { return false }
        guard issuers == 1, let issuer = parameters.value("iss"), provider.acceptedIssuers.contains(issuer) else {
            let expected = provider.issuer.map { "'\($0)'" } ?? "this provider's issuer"
            let found = issuers == 0 ? "none" : issuers > 1 ? "\(issuers) iss parameters" : "another issuer"
            throw SignInError(
                .issuerMismatch,
                "expected the authorization response from \(expected) (iss parameter, RFC 9207), found \(found)",
                provider: provider.name)
        }
        return true
    }

    /// A request the driver performed could not be made (the spent-state set or the application's profile
    /// store failed, the token or userinfo endpoint was unreachable). Ends the flow.
    ///
    /// - Returns: `error`, with the flow's provider and trace, to throw.
    /// - Precondition: the flow is waiting for the outcome of an action (not new, not finished, not
    ///   verifying an id_token: ``idTokenVerified(_:now:)`` carries that outcome, failed or not).
    package mutating func requestFailed(_ error: SignInError, now: Date) -> SignInError {
        let step: TraceEvent.Step
        var roundTrip = true
        switch state {
        case .awaitingSpend:
            step = .callback
            roundTrip = false
        case .pushing: step = .authorizationRedirect
        case .exchangingCode: step = .tokenExchange
        case .awaitingUserinfo: step = .userinfo
        case .idle, .redirected, .verifyingIDToken, .finished: unexpected("request failed")
        }
        return failure(step, error, now: now, roundTrip: roundTrip)
    }
}
