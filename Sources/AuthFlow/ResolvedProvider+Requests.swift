public import AuthFlowHTTP
public import Foundation

extension ResolvedProvider {
    /// The authorization-code token request, with the client authenticated per ``clientAuthentication``.
    ///
    /// Always carries `code` and `redirect_uri`, plus `code_verifier` when a PKCE verifier was stored.
    /// `client_secret_post` and `es256_client_secret_jwt` put `client_id` and `client_secret` in the form
    /// body (the latter a JWT minted for `now`); `client_secret_basic` uses an HTTP Basic header;
    /// `client_secret_get` sends everything as the query of a GET (Facebook). Without a configured secret
    /// the client is public and sends only `client_id`.
    ///
    /// - Throws: ``SignInError`` with `client_authentication_failed` when the secret JWT cannot be minted.
    public func tokenRequest(
        code: String, pkceVerifier: String?, now: Date, clientSecretLifetime: Int64 = 300
    ) throws(SignInError) -> HTTPClientRequest {
        var fields: [(String, String)] = []
        if clientAuthentication != .clientSecretGet { fields.append(("grant_type", "authorization_code")) }
        fields.append(("code", code))
        fields.append(("redirect_uri", redirectURI))
        if let pkceVerifier { fields.append(("code_verifier", pkceVerifier)) }
        return try authenticatedRequest(
            url: endpoints.token ?? "", fields: fields, now: now, clientSecretLifetime: clientSecretLifetime)
    }

    /// A revocation request (RFC 7009) for `token`, authenticated like the token request, or the plugin's own
    /// (``ProviderPlugin/revocationRequest(for:token:)``); `nil` when the provider has no revocation endpoint.
    ///
    /// - Throws: ``SignInError`` with `client_authentication_failed` when the secret JWT cannot be minted.
    public func revocationRequest(
        token: String, tokenTypeHint: String?, now: Date, clientSecretLifetime: Int64 = 300
    ) throws(SignInError) -> HTTPClientRequest? {
        guard let url = endpoints.revocation, !url.isEmpty else { return nil }
        if let request = plugin.revocationRequest(for: self, token: token) { return request }
        var fields: [(String, String)] = [("token", token)]
        if let tokenTypeHint { fields.append(("token_type_hint", tokenTypeHint)) }
        var request = try authenticatedRequest(
            url: url, fields: fields, now: now, clientSecretLifetime: clientSecretLifetime)
        if clientAuthentication == .clientSecretGet {
            // A GET revocation is not a thing; fall back to a POST form with the same fields.
            request = HTTPClientRequest.form(
                url: url, fields: fields + clientFields(secret: settings.clientSecret?.value))
            request.headers["Accept"] = "application/json"
        }
        return request
    }

    func authenticatedRequest(
        url: String, fields: [(String, String)], now: Date, clientSecretLifetime: Int64
    ) throws(SignInError) -> HTTPClientRequest {
        var request: HTTPClientRequest
        switch clientAuthentication {
        case .clientSecretPost:
            request = .form(url: url, fields: fields + clientFields(secret: settings.clientSecret?.value))
        case .es256ClientSecretJWT:
            let secret = try plugin.clientSecretJWT(for: self, now: now, lifetime: clientSecretLifetime)
            request = .form(url: url, fields: fields + clientFields(secret: secret))
        case .clientSecretBasic:
            if let secret = settings.clientSecret?.value {
                request = .form(url: url, fields: fields)
                request.setBasicAuthorization(user: clientID, password: secret)
            } else {
                request = .form(url: url, fields: fields + clientFields(secret: nil))
            }
        case .clientSecretGet:
            let query =
                [("client_id", clientID)] + fields.filter { $0.0 != "grant_type" }
                + (settings.clientSecret.map { [("client_secret", $0.value)] } ?? [])
            request = HTTPClientRequest(method: "GET", url: QueryString.appending(query, to: url))
        }
        request.headers["Accept"] = "application/json"
        return request
    }

    private func clientFields(secret: String?) -> [(String, String)] {
        var fields = [("client_id", clientID)]
        if let secret { fields.append(("client_secret", secret)) }
        return fields
    }
}
