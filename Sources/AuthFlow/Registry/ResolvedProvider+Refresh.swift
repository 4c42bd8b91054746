package import AuthFlowHTTP
package import AuthFlowJOSE
package import Foundation

extension ResolvedProvider {
    /// The refresh-token grant request (RFC 6749 §6), with the client authenticated per
    /// ``clientAuthentication`` (Apple: a fresh ES256 client-secret JWT minted for `now`).
    ///
    /// - Parameters:
    ///   - refreshToken: the refresh token to redeem.
    ///   - scopes: a narrower scope to ask for; `nil` keeps the granted one.
    ///   - now: the current time (for a minted client secret).
    ///   - clientSecretLifetime: lifetime of a minted client secret, in seconds.
    ///   - random: the source of a `private_key_jwt` assertion's `jti`.
    /// - Throws: ``SignInError`` with `refresh_unsupported` for a GET token endpoint (Facebook issues no
    ///   refresh tokens), `client_authentication_failed` when the secret JWT cannot be minted.
    package func refreshRequest(
        refreshToken: String, scopes: [String]? = nil, now: Date, clientSecretLifetime: Int64 = 300,
        random: any SecureRandom = SystemRandom()
    ) throws(SignInError) -> HTTPClientRequest {
        guard clientAuthentication != .clientSecretGet else {
            throw SignInError(
                .refreshUnsupported,
                "expected a provider with a refresh-token grant, found one whose token endpoint is a GET "
                    + "(it issues no refresh tokens)",
                provider: name)
        }
        var fields: [(String, String)] = [("grant_type", "refresh_token"), ("refresh_token", refreshToken)]
        if let scopes, !scopes.isEmpty { fields.append(("scope", scopes.joined(separator: " "))) }
        return try authenticatedRequest(
            url: endpoints.token ?? "", fields: fields, now: now, clientSecretLifetime: clientSecretLifetime,
            random: random)
    }

    /// The long-lived-token exchange (Facebook's `grant_type=fb_exchange_token`) for `accessToken`, with the
    /// client authenticated as at the code exchange; `nil` when the plugin declares no such exchange.
    ///
    /// - Throws: ``SignInError`` with `client_authentication_failed` when a secret JWT cannot be minted.
    package func longLivedTokenRequest(accessToken: String, now: Date, clientSecretLifetime: Int64 = 300)
        throws(SignInError) -> HTTPClientRequest?
    {
        guard let fields = plugin.tokenEndpoint.longLivedExchangeParameters(accessToken: accessToken),
            let url = endpoints.token
        else {
            return nil
        }
        guard clientAuthentication == .clientSecretGet else {
            return try authenticatedRequest(
                url: url, fields: fields, now: now, clientSecretLifetime: clientSecretLifetime)
        }
        // A GET token endpoint: everything in the query, the grant type included (unlike the code exchange).
        let query =
            fields + [("client_id", clientID)] + (settings.clientSecret.map { [("client_secret", $0.value)] } ?? [])
        var request = HTTPClientRequest(method: "GET", url: QueryString.appending(query, to: url))
        request.headers["Accept"] = "application/json"
        return request
    }
}
