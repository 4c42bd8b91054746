import AuthFlowHTTP
import AuthFlowJOSE

/// The one reader of a token endpoint's answer (RFC 6749 §5.1, §5.2): the code exchange of ``OAuthFlow`` and
/// the refreshes and long-lived-token exchanges of ``TokenOperations`` all turn the answer into a ``TokenSet``
/// here, with the same checks and the same typed errors.
enum TokenResponse {
    /// The tokens of a 2xx answer without an `error` member.
    ///
    /// A non-2xx status, or a 2xx body with an `error` member, is `token_endpoint_error` quoting the provider's
    /// `error` code; a 2xx body that is not a JSON object with a non-empty `access_token` (a Bearer
    /// `token_type` when present, an `id_token` when `requireIDToken`) is `invalid_token_response`. Both carry
    /// the HTTP status; token values never appear in an error.
    ///
    /// - Parameters:
    ///   - response: the token endpoint's answer.
    ///   - expected: what the caller asked for, for the message (`tokens`, `refreshed tokens`).
    ///   - requireIDToken: whether an `id_token` must be present (an OpenID Connect code exchange).
    ///   - dpopKey: the DPoP key the request proved possession of (RFC 9449): the answer's `token_type` must then
    ///     be `DPoP` (§5), and the tokens carry the key.
    static func tokens(
        from response: HTTPClientResponse, expected: String, requireIDToken: Bool, dpopKey: JWK? = nil
    ) throws(SignInError) -> TokenSet {
        let json = try? JSONValue.parse(response.body)
        let providerCode = ProviderErrorCode.sanitize(OAuthFlow.errorCode(in: json))
        guard (200..<300).contains(response.status), providerCode == nil else {
            throw SignInError(
                .tokenEndpointError,
                "expected \(expected) from the token endpoint, found HTTP \(response.status) with error "
                    + "'\(providerCode ?? "none")'",
                providerError: providerCode, upstreamStatus: response.status)
        }
        do throws(SignInError) {
            var tokens = try tokenSet(from: json, requireIDToken: requireIDToken, dpop: dpopKey != nil)
            tokens.dpopKey = dpopKey
            return tokens
        } catch {
            var error = error
            error.upstreamStatus = response.status
            throw error
        }
    }

    private static func tokenSet(from json: JSONValue?, requireIDToken: Bool, dpop: Bool) throws(SignInError)
        -> TokenSet
    {
        guard let object = json?.objectValue else {
            throw SignInError(
                .invalidTokenResponse, "expected a JSON object from the token endpoint, found something else")
        }
        guard let accessToken = object["access_token"]?.stringValue, !accessToken.isEmpty else {
            throw SignInError(.invalidTokenResponse, "expected a non-empty string access_token, found none")
        }
        let tokenType = object["token_type"]?.stringValue
        if dpop, tokenType?.lowercased() != "dpop" {
            // RFC 9449 §5: a server that bound the token says so; any other answer would leave it usable by
            // whoever holds it, which the proof was sent to prevent.
            throw SignInError(
                .invalidTokenResponse,
                "expected token_type DPoP (a DPoP proof was sent), found "
                    + (tokenType.map { "'\(ProviderErrorCode.sanitize($0) ?? "another")'" } ?? "none"))
        }
        if !dpop, object["token_type"] != nil, tokenType?.lowercased() != "bearer" {
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
