package import AuthFlowHTTP
package import AuthFlowJOSE
package import Foundation

extension ResolvedProvider {
    /// The authorization-code token request, with the client authenticated per ``clientAuthentication``.
    ///
    /// Always carries `code` and `redirect_uri`, plus `code_verifier` when a PKCE verifier was stored.
    /// `client_secret_post` and `es256_client_secret_jwt` put `client_id` and `client_secret` in the form
    /// body (the latter a JWT minted for `now`); `client_secret_basic` uses an HTTP Basic header;
    /// `client_secret_get` sends everything as the query of a GET (Facebook); `private_key_jwt` sends
    /// `client_id` and a fresh client assertion, an RFC 7523 JWT (its `jti` from `random`). Without a
    /// configured secret the client is public and sends only `client_id`.
    ///
    /// - Throws: ``SignInError`` with `client_authentication_failed` when the secret JWT or the assertion
    ///   cannot be minted.
    package func tokenRequest(
        code: String, pkceVerifier: String?, now: Date, clientSecretLifetime: Int64 = 300,
        random: any SecureRandom = SystemRandom()
    ) throws(SignInError) -> HTTPClientRequest {
        var fields: [(String, String)] = []
        if clientAuthentication != .clientSecretGet { fields.append(("grant_type", "authorization_code")) }
        fields.append(("code", code))
        fields.append(("redirect_uri", redirectURI))
        if let pkceVerifier { fields.append(("code_verifier", pkceVerifier)) }
        return try authenticatedRequest(
            url: endpoints.token ?? "", fields: fields, now: now, clientSecretLifetime: clientSecretLifetime,
            random: random)
    }

    /// A revocation request (RFC 7009) for `token`, authenticated like the token request, or the plugin's own
    /// (``TokenEndpointStrategy/revocationRequest(for:token:)``); `nil` when the provider has no revocation endpoint.
    /// A `private_key_jwt` assertion names the revocation endpoint as its audience (RFC 7523 §3: a value that
    /// identifies the authorization server; glewlwyd 2.7 accepts only the endpoint's own URL there).
    ///
    /// - Throws: ``SignInError`` with `client_authentication_failed` when the secret JWT or the assertion
    ///   cannot be minted.
    package func revocationRequest(
        token: String, tokenTypeHint: String?, now: Date, clientSecretLifetime: Int64 = 300,
        random: any SecureRandom = SystemRandom()
    ) throws(SignInError) -> HTTPClientRequest? {
        guard let url = endpoints.revocation, !url.isEmpty else { return nil }
        if let request = plugin.tokenEndpoint.revocationRequest(for: self, token: token) { return request }
        var fields: [(String, String)] = [("token", token)]
        if let tokenTypeHint { fields.append(("token_type_hint", tokenTypeHint)) }
        var request = try authenticatedRequest(
            url: url, fields: fields, now: now, clientSecretLifetime: clientSecretLifetime, random: random,
            assertionAudience: url)
        if clientAuthentication == .clientSecretGet {
            // A GET revocation is not a thing; fall back to a POST form with the same fields.
            request = HTTPClientRequest.form(
                url: url, fields: fields + clientFields(secret: settings.clientSecret?.value))
            request.headers["Accept"] = "application/json"
        }
        return request
    }

    /// The pushed authorization request (RFC 9126 §2.1): the authorization request's `parameters` as a form
    /// POST to `url`, the client authenticated exactly as at the token endpoint (its `client_id` sent once:
    /// by the authentication where it carries one, otherwise among the parameters). `client_secret_get` has
    /// no POST form of its own, so its credentials go into the body as with `client_secret_post`.
    ///
    /// A `private_key_jwt` assertion names `url` itself as its audience: RFC 9126 §2 has servers accept the
    /// issuer, the token endpoint or the pushed authorization request endpoint there, and servers in the field
    /// (glewlwyd 2.7, idpyoidc 5.0; docs/testing.md) accept only the last.
    ///
    /// - Throws: ``SignInError`` with `client_authentication_failed` when the secret JWT or the assertion
    ///   cannot be minted.
    package func pushedAuthorizationRequest(
        url: String, parameters: [(String, String)], now: Date, clientSecretLifetime: Int64 = 300,
        random: any SecureRandom = SystemRandom()
    ) throws(SignInError) -> HTTPClientRequest {
        switch clientAuthentication {
        case .clientSecretGet:
            var request = HTTPClientRequest.form(
                url: url, fields: parameters + (settings.clientSecret.map { [("client_secret", $0.value)] } ?? []))
            request.headers["Accept"] = "application/json"
            return request
        case .clientSecretBasic where settings.clientSecret != nil:
            return try authenticatedRequest(
                url: url, fields: parameters, now: now, clientSecretLifetime: clientSecretLifetime, random: random)
        default:
            return try authenticatedRequest(
                url: url, fields: parameters.filter { $0.0 != "client_id" }, now: now,
                clientSecretLifetime: clientSecretLifetime, random: random, assertionAudience: url)
        }
    }

    func authenticatedRequest(
        url: String, fields: [(String, String)], now: Date, clientSecretLifetime: Int64,
        random: any SecureRandom = SystemRandom(), assertionAudience: String? = nil
    ) throws(SignInError) -> HTTPClientRequest {
        var request: HTTPClientRequest
        switch clientAuthentication {
        case .clientSecretPost:
            request = .form(url: url, fields: fields + clientFields(secret: settings.clientSecret?.value))
        case .es256ClientSecretJWT:
            let secret = try plugin.tokenEndpoint.mintedClientSecret(
                for: self, now: now, lifetime: clientSecretLifetime)
            request = .form(url: url, fields: fields + clientFields(secret: secret))
        case .clientSecretBasic:
            if let secret = settings.clientSecret?.value {
                request = .form(url: url, fields: fields)
                request.setBasicAuthorization(user: clientID, password: secret)
            } else {
                request = .form(url: url, fields: fields + clientFields(secret: nil))
            }
        case .privateKeyJWT:
            let assertion = try clientAssertion(now: now, random: random, audience: assertionAudience)
            request = .form(
                url: url,
                fields: fields + [
                    ("client_id", clientID), ("client_assertion_type", ClientAssertion.assertionType),
                    ("client_assertion", assertion),
                ])
        case .clientSecretGet:
            let query =
                [("client_id", clientID)] + fields.filter { $0.0 != "grant_type" }
                + (settings.clientSecret.map { [("client_secret", $0.value)] } ?? [])
            request = HTTPClientRequest(method: "GET", url: QueryString.appending(query, to: url))
        }
        request.headers["Accept"] = "application/json"
        return request
    }

    /// A fresh `private_key_jwt` assertion for the token endpoint (RFC 7523 §3 names the authorization server,
    /// whose token endpoint URL identifies it), or for `audience` (the endpoint it is sent to).
    func clientAssertion(now: Date, random: any SecureRandom, audience: String? = nil) throws(SignInError) -> String {
        guard let pem = settings.privateKey?.value else {
            throw SignInError(
                .clientAuthenticationFailed, "expected private_key_file for client_auth private_key_jwt, found none",
                provider: name)
        }
        // Entra names the key by its certificate's thumbprint (`x5t`/`x5t#S256`), not by `kid`.
        let thumbprint =
            plugin.about.certificateThumbprintKeyID ? settings.keyID.flatMap(CertificateThumbprint.init(hex:)) : nil
        do throws(JOSEError) {
            let key = try JWK(pkcs8PEM: pem, keyID: thumbprint == nil ? settings.keyID : nil)
            // FAPI 2.0 Security Profile §5.3.2.1: the assertion's audience is the issuer identifier.
            let fapi2 = settings.profile == .fapi2
            return try ClientAssertion.make(
                clientID: clientID, audience: (fapi2 ? issuer : nil) ?? audience ?? endpoints.token ?? "",
                privateKey: key, issuedAt: now, rsaAlgorithm: fapi2 ? .ps256 : .rs256, random: random,
                certificateThumbprint: thumbprint)
        } catch {
            throw SignInError(
                .clientAuthenticationFailed,
                "expected to sign the private_key_jwt client assertion, found \(error.code)",
                provider: name)
        }
    }

    /// The signed request object (RFC 9101) carrying `parameters`, for the issuer (the authorization endpoint
    /// when the provider names none), signed with the `private_key_jwt` key.
    ///
    /// - Throws: ``SignInError`` with `client_authentication_failed` when the key is missing or cannot sign.
    func requestObject(_ parameters: [(String, String)], now: Date, random: any SecureRandom = SystemRandom())
        throws(SignInError) -> String
    {
        guard let pem = settings.privateKey?.value else {
            throw SignInError(
                .clientAuthenticationFailed, "expected private_key_file to sign the request object, found none",
                provider: name)
        }
        do throws(JOSEError) {
            return try RequestObject.make(
                parameters: parameters, clientID: clientID, audience: issuer ?? endpoints.authorization ?? "",
                privateKey: JWK(pkcs8PEM: pem, keyID: settings.keyID), issuedAt: now,
                rsaAlgorithm: settings.profile == .fapi2 ? .ps256 : .rs256, random: random)
        } catch {
            throw SignInError(
                .clientAuthenticationFailed, "expected to sign the request object, found \(error.code)", provider: name)
        }
    }

    private func clientFields(secret: String?) -> [(String, String)] {
        var fields = [("client_id", clientID)]
        if let secret { fields.append(("client_secret", secret)) }
        return fields
    }
}
