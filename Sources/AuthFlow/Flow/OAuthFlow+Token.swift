package import AuthFlowHTTP
import AuthFlowJOSE
package import Foundation

extension OAuthFlow {
    /// The token endpoint answered.
    ///
    /// A non-2xx status, or a 2xx body with an `error` member, is `token_endpoint_error` quoting the
    /// provider's `error` code; a 2xx body that is not a JSON object with a non-empty `access_token` (and a
    /// Bearer `token_type` when present, and an `id_token` with oidc) is `invalid_token_response` (the checks
    /// every token answer gets, in `TokenResponse`). Token values never appear in an error.
    ///
    /// - Returns: ``TokenResponseAction/verifyIDToken(_:)`` (oidc), ``TokenResponseAction/fetchUserinfo(_:)``
    ///   (oauth2), or ``TokenResponseAction/fail(_:)``.
    /// - Precondition: the flow asked for the code exchange (``StateSpentAction/exchangeCode(_:)``).
    package mutating func tokenResponseReceived(_ response: HTTPClientResponse, now: Date) -> TokenResponseAction {
        guard case .exchangingCode(let exchange) = state else { unexpected("token response") }
        let detail = "HTTP \(response.status)"
        let tokens: TokenSet
        do throws(SignInError) {
            tokens = try TokenResponse.tokens(
                from: response, expected: "tokens", requireIDToken: provider.isEnabled(.oidc),
                dpopKey: exchange.record.dpopKey)
        } catch {
            return fail(.tokenExchange, error, now: now, roundTrip: true, detail: detail)
        }
        appendTrace(
            .tokenExchange, now: now, checks: ["status", "access_token"] + (tokens.idToken == nil ? [] : ["id_token"]),
            roundTrip: true, outcome: .succeeded, detail: detail)
        if provider.isEnabled(.oidc), let idToken = tokens.idToken {
            guard provider.endpoints.jwks != nil else {
                return fail(.jwks, SignInError(.jwksUnavailable, "expected a JWKS endpoint, found none"), now: now)
            }
            // A provider that does not echo the nonce (LinkedIn) has it checked only when present.
            let echoes = provider.plugin.noncePolicy == .required
            let verifier = provider.jwtVerifier(leeway: options.leeway, nonce: echoes ? exchange.record.nonce : nil)
            state = .verifyingIDToken(exchange, tokens)
            return .verifyIDToken(IDTokenVerification(idToken: idToken, verifier: verifier))
        }
        return requestUserinfo(exchange, tokens, idTokenClaims: nil, now: now)
    }

    mutating func requestUserinfo<Action: FlowFailing & UserinfoRequesting>(
        _ exchange: Exchange, _ tokens: TokenSet, idTokenClaims: JWTClaims?, now: Date
    ) -> Action {
        var requests: [HTTPClientRequest]
        do throws(SignInError) {
            requests = try provider.plugin.identity.userinfoRequests(for: provider, accessToken: tokens.accessToken)
        } catch {
            return fail(.userinfo, error, now: now)
        }
        guard !requests.isEmpty else {
            return fail(.userinfo, SignInError(.userinfoError, "expected a userinfo request, found none"), now: now)
        }
        let first = requests.removeFirst()
        state = .awaitingUserinfo(exchange, tokens, idTokenClaims: idTokenClaims, pending: requests, received: [])
        return .fetchUserinfo(first)
    }

    /// The OAuth `error` member of a body: a string, or Facebook's `{"error": {"type"|"code": …}}`.
    static func errorCode(in json: JSONValue?) -> String? {
        guard let error = json?["error"] else { return nil }
        if let code = error.stringValue { return code }
        if let type = error["type"]?.stringValue { return type }
        if let code = error["code"]?.int64Value { return String(code) }
        return "error"
    }
}

/// An action type with a `fetchUserinfo` case.
protocol UserinfoRequesting {
    static func fetchUserinfo(_ request: HTTPClientRequest) -> Self
}

extension OAuthFlow.TokenResponseAction: UserinfoRequesting {}
extension OAuthFlow.IdentityAction: UserinfoRequesting {}
