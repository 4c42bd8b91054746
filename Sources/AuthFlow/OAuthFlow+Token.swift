public import AuthFlowHTTP
import AuthFlowJOSE
public import Foundation

extension OAuthFlow {
    /// The token endpoint answered.
    ///
    /// A non-2xx status, or a 2xx body with an `error` member, is `token_endpoint_error` quoting the
    /// provider's `error` code; a 2xx body that is not a JSON object with a non-empty `access_token` (and a
    /// Bearer `token_type` when present, and an `id_token` with oidc) is `invalid_token_response`. Token
    /// values never appear in an error.
    ///
    /// - Returns: ``Action/fetchJWKS(_:)`` (oidc), ``Action/fetchUserinfo(_:)`` (oauth2), or ``Action/fail(_:)``.
    public mutating func tokenResponseReceived(_ response: HTTPClientResponse, now: Date) -> Action {
        guard case .exchangingCode(let exchange) = state else { return unexpected("token response", now: now) }
        let detail = "HTTP \(response.status)"
        let json = try? JSONValue.parse(response.body)
        let providerCode = ProviderErrorCode.sanitize(Self.errorCode(in: json))
        guard (200..<300).contains(response.status), providerCode == nil else {
            return fail(
                .tokenExchange,
                SignInError(
                    .tokenEndpointError,
                    "expected tokens from the token endpoint, found HTTP \(response.status) with error '\(providerCode ?? "none")'",
                    providerError: providerCode, upstreamStatus: response.status),
                now: now, roundTrip: true, detail: detail)
        }
        let tokens: TokenSet
        do throws(SignInError) {
            tokens = try Self.tokenSet(from: json, requireIDToken: provider.isEnabled(.oidc))
        } catch {
            var error = error
            error.upstreamStatus = response.status
            return fail(.tokenExchange, error, now: now, roundTrip: true, detail: detail)
        }
        appendTrace(
            .tokenExchange, now: now, checks: ["status", "access_token"] + (tokens.idToken == nil ? [] : ["id_token"]),
            roundTrip: true, outcome: .succeeded, detail: detail)
        if provider.isEnabled(.oidc), let idToken = tokens.idToken {
            guard let url = provider.endpoints.jwks else {
                return fail(.jwks, SignInError(.jwksUnavailable, "expected a JWKS endpoint, found none"), now: now)
            }
            state = .awaitingKeys(exchange, tokens, idToken: idToken, refetched: false)
            return .fetchJWKS(JWKSFetch(url: url, forceRefresh: false, keyID: nil, idToken: idToken))
        }
        return requestUserinfo(exchange, tokens, idTokenClaims: nil, now: now)
    }

    mutating func requestUserinfo(_ exchange: Exchange, _ tokens: TokenSet, idTokenClaims: JWTClaims?, now: Date)
        -> Action
    {
        let request: HTTPClientRequest
        do throws(SignInError) {
            request = try provider.plugin.userinfoRequest(for: provider, accessToken: tokens.accessToken)
        } catch {
            return fail(.userinfo, error, now: now)
        }
        state = .awaitingUserinfo(exchange, tokens, idTokenClaims: idTokenClaims)
        return .fetchUserinfo(request)
    }

    /// The OAuth `error` member of a body: a string, or Facebook's `{"error": {"type"|"code": …}}`.
    static func errorCode(in json: JSONValue?) -> String? {
        guard let error = json?["error"] else { return nil }
        if let code = error.stringValue { return code }
        if let type = error["type"]?.stringValue { return type }
        if let code = error["code"]?.int64Value { return String(code) }
        return "error"
    }

    static func tokenSet(from json: JSONValue?, requireIDToken: Bool) throws(SignInError) -> TokenSet {
        guard let object = json?.objectValue else {
            throw SignInError(
                .invalidTokenResponse, "expected a JSON object from the token endpoint, found something else")
        }
        guard let accessToken = object["access_token"]?.stringValue, !accessToken.isEmpty else {
            throw SignInError(.invalidTokenResponse, "expected a non-empty string access_token, found none")
        }
        let tokenType = object["token_type"]?.stringValue
        if object["token_type"] != nil, tokenType?.lowercased() != "bearer" {
            throw SignInError(.invalidTokenResponse, "expected token_type Bearer, found another token type")
        }
        var expiresIn: Int64?
        switch object["expires_in"] {
        case .integer(let value)?: expiresIn = value
        case .double(let value)? where value.isFinite && value >= 0 && value < 1e12: expiresIn = Int64(value)
        case .string(let text)?: expiresIn = Int64(text)
        default: expiresIn = nil
        }
        if let value = expiresIn, value < 0 { expiresIn = nil }
        let idToken = object["id_token"]?.stringValue
        if requireIDToken, (idToken ?? "").isEmpty {
            throw SignInError(.invalidTokenResponse, "expected an id_token in the token response (oidc), found none")
        }
        return TokenSet(
            accessToken: accessToken, tokenType: tokenType, refreshToken: object["refresh_token"]?.stringValue,
            expiresIn: expiresIn, idToken: idToken, scope: object["scope"]?.stringValue)
    }
}
