import AuthFlowHTTP
import AuthFlowJOSE
import Foundation
import Synchronization

extension SandboxIdentityProvider {
    /// The `iss` of id_tokens from one Microsoft tenant: `<base URL>/microsoft/<tenant id>/v2.0` (with an issuer
    /// override for Microsoft, its `{tenantid}` placeholder is replaced).
    package func microsoftIssuer(tenantID: String) -> String {
        let template =
            configuration.issuerOverrides[.microsoft] ?? baseURL + SandboxProvider.microsoft.pathPrefix
            + "/{tenantid}/v2.0"
        return template.replacingOccurrences(of: "{tenantid}", with: tenantID.lowercased())
    }

    /// The Microsoft endpoints of one authority: `common`, `organizations`, `consumers` or a tenant GUID. The
    /// issuer is the tenant's own for a GUID, the `{tenantid}` template otherwise.
    package func microsoftEndpoints(tenant: String) -> SandboxEndpoints {
        let authority = tenant.lowercased()
        let issuer =
            MicrosoftEmulator.multiTenantAuthorities.contains(authority)
            ? issuer(for: .microsoft) : microsoftIssuer(tenantID: authority)
        return MicrosoftEmulator.endpoints(
            root: baseURL + SandboxProvider.microsoft.pathPrefix, authority: authority, issuer: issuer)
    }

    func isKnownMicrosoftTenant(_ id: String) -> Bool {
        id == SandboxMicrosoftTenant.personalAccounts.id || configuration.microsoftTenants.contains { $0.id == id }
    }

    /// The authority a path segment names (lowercased), or `nil` for an unknown tenant. The personal-accounts
    /// tenant GUID is the `consumers` authority.
    func microsoftAuthority(_ segment: String) -> String? {
        let lowered = segment.lowercased()
        if MicrosoftEmulator.multiTenantAuthorities.contains(lowered) { return lowered }
        if lowered == SandboxMicrosoftTenant.personalAccounts.id { return "consumers" }
        return configuration.microsoftTenants.contains { $0.id == lowered } ? lowered : nil
    }

    /// The issuer a discovery document or JWKS of `authority` names: the tenant's, or the template.
    func microsoftAuthorityIssuer(_ authority: String) -> String {
        MicrosoftEmulator.multiTenantAuthorities.contains(authority)
            ? issuer(for: .microsoft) ?? "" : microsoftIssuer(tenantID: authority)
    }

    // MARK: - Discovery and keys

    func microsoftDiscovery(authority: String) -> JSONValue {
        let endpoints = microsoftEndpoints(tenant: authority)
        func list(_ values: [String]) -> JSONValue { .array(values.map(JSONValue.string)) }
        return .object([
            "issuer": .string(microsoftAuthorityIssuer(authority)),
            "authorization_endpoint": .string(endpoints.authorization),
            "token_endpoint": .string(endpoints.token),
            "userinfo_endpoint": .string(endpoints.userinfo ?? ""),
            "jwks_uri": .string(endpoints.jwks ?? ""),
            "end_session_endpoint": .string(endpoints.endSession ?? ""),
            "token_endpoint_auth_methods_supported": list([
                "client_secret_post", "private_key_jwt", "client_secret_basic",
            ]),
            "response_types_supported": list(["code"]),
            "response_modes_supported": list(["query", "fragment", "form_post"]),
            "scopes_supported": list(["openid", "profile", "email", "offline_access"]),
            "subject_types_supported": list(["pairwise"]),
            "id_token_signing_alg_values_supported": list(["RS256"]),
            "claims_supported": list([
                "sub", "iss", "aud", "exp", "iat", "nbf", "auth_time", "nonce", "preferred_username", "name", "tid",
                "oid", "ver", "email", "groups", "roles",
            ]),
            "request_uri_parameter_supported": .bool(false),
            "frontchannel_logout_supported": .bool(true),
            "http_logout_supported": .bool(true),
            "tenant_region_scope": .null,
            "cloud_instance_name": .string("sandbox"),
        ])
    }

    /// Keys without `alg`, each with the `issuer` it may verify (the template for multi-tenant authorities).
    func microsoftJWKS(authority: String) -> HTTPServerResponse {
        state.withLock { $0.count(.microsoft, \.jwks) }
        do {
            let document = try keyRing(for: .microsoft).jwksDocument(
                withAlgorithm: false, extraMembers: ["issuer": .string(microsoftAuthorityIssuer(authority))])
            var response = HTTPServerResponse.json(document.serialized())
            response.headers["Cache-Control"] = "public, max-age=300"
            return response
        } catch {
            return microsoftResponse(OAuthFailure("server_error", error.message, status: 500))
        }
    }

    // MARK: - Authorization

    /// Entra's authorization rules: a registered client and exact redirect URI, `response_type=code`,
    /// `response_mode` query/fragment/form_post, a non-empty scope, PKCE `S256` or `plain` when sent, `prompt`
    /// login/none/consent/select_account.
    func validateMicrosoftAuthorization(_ parameters: Parameters, authority: String)
        -> Result<AuthorizationRequest, AuthorizationRefusal>
    {
        let client: (client: SandboxClient, redirectURI: String)
        switch registeredClient(parameters, provider: .microsoft) {
        case .failure(let refusal):
            return .failure(
                refusal.error == "invalid_client"
                    ? AuthorizationRefusal(
                        "unauthorized_client",
                        "AADSTS700016: Application with identifier '\(clip(parameters["client_id"] ?? ""))' was not "
                            + "found in the directory", status: 400)
                    : AuthorizationRefusal(refusal.error, "AADSTS50011: " + refusal.description))
        case .success(let value): client = value
        }
        guard parameters["response_type"] == "code" else {
            return .failure(
                AuthorizationRefusal(
                    "unsupported_response_type",
                    "AADSTS700054: response_type must be 'code', found "
                        + (parameters["response_type"].map { "'\(clip($0))'" } ?? "none")))
        }
        let mode: AuthorizationRequest.ResponseMode
        switch parameters["response_mode"] {
        case nil, "query"?: mode = .query
        case "fragment"?: mode = .fragment
        case "form_post"?: mode = .formPost
        case let other?:
            return .failure(
                AuthorizationRefusal(
                    "invalid_request", "response_mode must be query, fragment or form_post, found '\(clip(other))'"))
        }
        let scopes = Self.scopes(parameters["scope"])
        guard !scopes.isEmpty else {
            return .failure(
                AuthorizationRefusal("invalid_request", "AADSTS900144: missing required parameter scope"))
        }
        let prompts = Self.scopes(parameters["prompt"])
        if let unknown = prompts.first(where: { !["login", "none", "consent", "select_account"].contains($0) }) {
            return .failure(AuthorizationRefusal("invalid_request", "unsupported prompt value '\(clip(unknown))'"))
        }
        let challenge: PKCEChallenge?
        switch Self.challenge(parameters) {
        case .failure(let refusal): return .failure(refusal)
        case .success(let value): challenge = value
        }
        let request = AuthorizationRequest(
            provider: .microsoft, clientID: client.client.clientID, redirectURI: client.redirectURI,
            responseMode: mode, scopes: scopes, state: parameters["state"], nonce: parameters["nonce"],
            challenge: challenge, offlineAccess: scopes.contains("offline_access"), authority: authority)
        if prompts.contains("none") {
            // No browser session exists at the sandbox, so a silent sign-in can never succeed.
            return .failure(
                AuthorizationRefusal("interaction_required", "AADSTS50058: no user is signed in (prompt=none)"))
        }
        return .success(request)
    }

    // MARK: - Token endpoint

    /// `POST /microsoft/{tenant}/oauth2/v2.0/token`: authorization_code (single use, same authority, exact
    /// redirect URI, PKCE) and refresh_token (a new refresh token each time; used ones stay valid, as Entra's).
    func handleMicrosoftToken(_ request: HTTPServerRequest, authority: String) -> HTTPServerResponse {
        state.withLock { $0.count(.microsoft, \.token) }
        let audience = microsoftEndpoints(tenant: authority).token
        do throws(OAuthFailure) {
            guard let form = Parameters.form(of: request) else {
                throw .invalidRequest("AADSTS900561: expected an application/x-www-form-urlencoded POST body")
            }
            if let problem = form.shapeProblem { throw .invalidRequest("AADSTS90014: " + problem) }
            let client = try authenticateMicrosoftClient(form, request: request, audience: audience).get()
            switch form["grant_type"] {
            case "authorization_code"?:
                if let code = form["code"], let issuedAt = state.withLock({ $0.codes[code]?.request.authority }),
                    issuedAt != authority
                {
                    throw .invalidGrant(
                        "AADSTS50148: the code was issued by the '\(issuedAt)' authority and must be redeemed there, "
                            + "not at '\(authority)'")
                }
                let (code, record) = try redeemCode(in: form, client: client, provider: .microsoft, policy: .init())
                let tokens = issueTokens(code: code, record: record, withRefresh: record.request.offlineAccess)
                return try microsoftTokenResponse(
                    grant: tokens.grant, accessToken: tokens.accessToken, refreshToken: tokens.refreshToken,
                    nonce: record.request.nonce)
            case "refresh_token"?:
                let grant = try refreshGrant(
                    in: form, client: client, provider: .microsoft,
                    refusal: "AADSTS70000: the refresh token is unknown, revoked or issued to another client")
                let accessToken = issueAccessToken(grant: grant)
                let refreshToken = randomToken(prefix: MicrosoftEmulator().refreshTokenPrefix)
                state.withLock { $0.refreshTokens[refreshToken] = RefreshTokenRecord(grantID: grant.id) }
                return try microsoftTokenResponse(
                    grant: grant, accessToken: accessToken, refreshToken: refreshToken, nonce: nil)
            case let other:
                throw .unsupportedGrantType(other)
            }
        } catch {
            return microsoftResponse(error)
        }
    }

    func microsoftTokenResponse(grant: GrantRecord, accessToken: String, refreshToken: String?, nonce: String?)
        throws(OAuthFailure) -> HTTPServerResponse
    {
        let lifetime = SandboxProvider.microsoft.accessTokenLifetime
        var body: [String: JSONValue] = [
            "token_type": .string("Bearer"), "scope": .string(grant.scopes.joined(separator: " ")),
            "expires_in": .integer(lifetime), "ext_expires_in": .integer(lifetime),
            "access_token": .string(accessToken),
        ]
        if let refreshToken { body["refresh_token"] = .string(refreshToken) }
        if grant.scopes.contains("openid") {
            do throws(SandboxError) {
                body["id_token"] = .string(
                    try microsoftIDToken(
                        identity: grant.identity, clientID: grant.clientID, scopes: grant.scopes, nonce: nonce,
                        authTime: grant.authTime))
            } catch {
                throw OAuthFailure("server_error", error.message, status: 500)
            }
        }
        return tokenResponse(body)
    }

    /// An Entra v2.0 id_token: `ver`, `iss` of the user's tenant (or of ``SandboxIdentity/issuerTenantID``, the
    /// mismatch test hook), `tid`, `oid` and the profile claims with `profile`, `email` with `email` (plus
    /// `xms_edov` and `verified_primary_email` only when the address is verified), `groups` (or the overage
    /// pointer with ``SandboxIdentity/groupsOverage``) and `roles`.
    func microsoftIDToken(
        identity: SandboxIdentity, clientID: String, scopes: [String], nonce: String?, authTime: Int64
    ) throws(SandboxError) -> String {
        let ring = try keyRing(for: .microsoft)
        let tenant =
            identity.tenantID ?? configuration.microsoftTenants.first?.id
            ?? SandboxMicrosoftTenant.personalAccounts.id
        let issuedAt = epochSeconds
        var claims: [String: JSONValue] = [
            "ver": .string("2.0"), "iss": .string(microsoftIssuer(tenantID: identity.issuerTenantID ?? tenant)),
            "aud": .string(clientID), "sub": .string(identity.subject), "tid": .string(tenant),
            "iat": .integer(issuedAt), "nbf": .integer(issuedAt), "exp": .integer(issuedAt + 3600),
            "auth_time": .integer(authTime),
        ]
        if let nonce { claims["nonce"] = .string(nonce) }
        if scopes.contains("profile") {
            claims["oid"] = .string(
                identity.objectID ?? MicrosoftEmulator.derivedObjectID(subject: identity.subject, tenantID: tenant))
            if let name = identity.name { claims["name"] = .string(name) }
            claims["preferred_username"] = .string(identity.email ?? identity.subject)
        }
        if scopes.contains("email"), let email = identity.email {
            claims["email"] = .string(email)
            if identity.emailVerified {
                claims["xms_edov"] = .bool(true)
                claims["verified_primary_email"] = .array([.string(email)])
            }
        }
        if identity.groupsOverage {
            let objectID =
                identity.objectID ?? MicrosoftEmulator.derivedObjectID(subject: identity.subject, tenantID: tenant)
            claims["_claim_names"] = .object(["groups": .string("src1")])
            claims["_claim_sources"] = .object([
                "src1": .object([
                    "endpoint": .string("https://graph.microsoft.com/v1.0/users/\(objectID)/getMemberObjects")
                ])
            ])
        } else if !identity.groups.isEmpty {
            claims["groups"] = .array(identity.groups.map(JSONValue.string))
        }
        if !identity.roles.isEmpty { claims["roles"] = .array(identity.roles.map(JSONValue.string)) }
        return try signJWT(claims, provider: .microsoft, ring: ring, header: ["typ": .string("JWT")])
    }

    /// Entra's client authentication: exactly one of `client_secret_basic`, `client_secret_post`,
    /// `private_key_jwt` (RFC 7523, `aud` = this token endpoint) or none for a public client; a client registered
    /// with one ``SandboxClient/authMethod`` is refused any other.
    func authenticateMicrosoftClient(_ form: Parameters, request: HTTPServerRequest, audience: String)
        -> Result<SandboxClient, OAuthFailure>
    {
        var basic: BasicCredentials?
        switch BasicCredentials.parse(request) {
        case nil: basic = nil
        case .failure(let failure)?: return .failure(failure)
        case .success(let credentials)?: basic = credentials
        }
        let hasAssertion = form.contains("client_assertion") || form.contains("client_assertion_type")
        let used: [SandboxClient.AuthMethod] = [
            basic != nil ? .clientSecretBasic : nil, form.contains("client_secret") ? .clientSecretPost : nil,
            hasAssertion ? .privateKeyJWT : nil,
        ].compactMap { $0 }
        guard used.count <= 1 else {
            return .failure(
                .invalidRequest(
                    "AADSTS90023: only one client authentication method may be used, found "
                        + used.map(\.rawValue).joined(separator: " and ")))
        }
        let method = used.first ?? .none
        if let basic, let bodyID = form["client_id"], bodyID != basic.clientID {
            return .failure(.invalidRequest("client_id in the body differs from the HTTP Basic client id"))
        }
        guard let clientID = basic?.clientID ?? form["client_id"] else {
            return .failure(.invalidRequest("AADSTS900144: missing required parameter client_id"))
        }
        guard let client = state.withLock({ $0.client(.microsoft, clientID) }) else {
            return .failure(
                .invalidClient("AADSTS700016: Application with identifier '\(clip(clientID))' was not found"))
        }
        if let allowed = client.authMethod, allowed != method {
            return .failure(
                .invalidClient(
                    "AADSTS7000218: this client is registered for \(allowed.rawValue) client authentication, found "
                        + method.rawValue))
        }
        if let failure = checkMicrosoftCredential(
            method, client: client, secret: basic?.clientSecret ?? form["client_secret"], form: form,
            audience: audience)
        {
            return .failure(failure)
        }
        return .success(client)
    }

    /// Checks `client`'s credential for `method`: the secret, the assertion (RFC 7523, single-use `jti`), or that a
    /// client without credentials sent none; `nil` when it holds.
    func checkMicrosoftCredential(
        _ method: SandboxClient.AuthMethod, client: SandboxClient, secret: String?, form: Parameters, audience: String
    ) -> OAuthFailure? {
        switch method {
        case .clientSecretBasic, .clientSecretPost:
            guard let expected = client.clientSecret else {
                return .invalidClient("AADSTS7000215: no client secret is registered for this client")
            }
            guard let secret, constantTimeEquals(secret, expected) else {
                return .invalidClient("AADSTS7000215: Invalid client secret provided.")
            }
            return nil
        case .privateKeyJWT:
            return checkMicrosoftAssertion(form, client: client, audience: audience)
        case .none:
            guard client.clientSecret == nil, client.assertionKeys.isEmpty else {
                return .invalidClient(
                    "AADSTS7000218: The request body must contain the following parameter: 'client_assertion' "
                        + "or 'client_secret'.")
            }
            return nil
        }
    }

    /// `private_key_jwt`: the assertion type, a registered key, the assertion's checks and a `jti` not seen before.
    func checkMicrosoftAssertion(_ form: Parameters, client: SandboxClient, audience: String) -> OAuthFailure? {
        guard form["client_assertion_type"] == ClientAssertionValidator.assertionType else {
            return .invalidClient(
                "AADSTS50027: client_assertion_type must be '\(ClientAssertionValidator.assertionType)', found "
                    + (form["client_assertion_type"].map { "'\(clip($0))'" } ?? "none"))
        }
        guard let assertion = form["client_assertion"] else {
            return .invalidClient("AADSTS50027: missing client_assertion")
        }
        guard !client.assertionKeys.isEmpty else {
            return .invalidClient("AADSTS700027: no key is registered for this client's assertions")
        }
        if let certificate = client.certificate, let failure = Self.checkThumbprint(assertion, certificate: certificate)
        {
            return failure
        }
        let validator = ClientAssertionValidator(
            clientID: client.clientID, keys: client.assertionKeys, audience: audience)
        let now = self.now
        switch validator.check(assertion, now: now) {
        case .failure(let failure): return failure
        case .success(let checked):
            let fresh = state.withLock {
                $0.spendAssertion(clientID: client.clientID, jti: checked.jti, expiresAt: checked.expiresAt, now: now)
            }
            guard fresh else {
                return .invalidClient("AADSTS700024: the client assertion's jti was already used (a replay)")
            }
            return nil
        }
    }

    /// A certificate credential's assertion names its certificate in the header: `x5t` (base64url SHA-1 of the DER
    /// encoding) or `x5t#S256` (SHA-256); at least one present, and each present one matching; `nil` when it holds.
    static func checkThumbprint(_ assertion: String, certificate: [UInt8]) -> OAuthFailure? {
        guard let header = try? JWSVerifier.header(of: assertion) else { return nil }  // the validator refuses it
        let expected = [
            "x5t": Base64URL.encode(Digest.sha1(certificate)), "x5t#S256": Base64URL.encode(Digest.sha256(certificate)),
        ]
        let json = header.json
        var named = false
        for (name, thumbprint) in expected.sorted(by: { $0.key < $1.key }) {
            guard let value = json[name] else { continue }
            guard value.stringValue == thumbprint else {
                return .invalidClient(
                    "AADSTS700027: client assertion refused: \(name) does not match the thumbprint of a certificate "
                        + "registered for this application")
            }
            named = true
        }
        guard named else {
            return .invalidClient(
                "AADSTS700027: client assertion refused: expected the certificate's thumbprint in the header (x5t or "
                    + "x5t#S256), found neither")
        }
        return nil
    }

    /// Entra's error body: `error`, `error_description`, `error_codes` (the AADSTS number), `timestamp`,
    /// `trace_id`, `correlation_id`.
    func microsoftResponse(_ failure: OAuthFailure) -> HTTPServerResponse {
        var body: [String: JSONValue] = [
            "error": .string(failure.error), "error_description": .string(failure.description),
            "timestamp": .string(ISO8601DateFormatter().string(from: now)),
            "trace_id": .string(UUID().uuidString.lowercased()),
            "correlation_id": .string(UUID().uuidString.lowercased()),
        ]
        if failure.description.hasPrefix("AADSTS"),
            let number = Int64(failure.description.dropFirst(6).prefix { $0.isNumber })
        {
            body["error_codes"] = .array([.integer(number)])
        }
        var response = HTTPServerResponse.json(JSONValue.object(body).serialized(), status: failure.status)
        response.headers["Cache-Control"] = "no-store"
        response.headers["Pragma"] = "no-cache"
        return response
    }

    // MARK: - Userinfo

    /// `GET|POST /microsoft/oidc/userinfo` (Graph's OIDC userinfo): a Bearer access token; `sub`, the name
    /// claims and `email` as the grant's scopes allow.
    func handleMicrosoftUserinfo(_ request: HTTPServerRequest) -> HTTPServerResponse {
        state.withLock { $0.count(.microsoft, \.userinfo) }
        func refuse(_ description: String) -> HTTPServerResponse {
            var response = OAuthFailure("invalid_token", description, status: 401).oauthResponse()
            response.headers["WWW-Authenticate"] = "Bearer realm=\"sandbox\", error=\"invalid_token\""
            return response
        }
        guard let token = bearerToken(of: request) else { return refuse("missing Authorization: Bearer header") }
        let now = self.now
        let grant: GrantRecord
        switch state.withLock({ $0.liveGrant(accessToken: token, provider: .microsoft, now: now) }) {
        case .failure(let problem): return refuse(problem.description)
        case .success(let value): grant = value
        }
        let identity = grant.identity
        var body: [String: JSONValue] = ["sub": .string(identity.subject)]
        if grant.scopes.contains("profile") {
            if let name = identity.name { body["name"] = .string(name) }
            if let given = identity.givenName { body["given_name"] = .string(given) }
            if let family = identity.familyName { body["family_name"] = .string(family) }
        }
        if grant.scopes.contains("email"), let email = identity.email { body["email"] = .string(email) }
        return tokenResponse(body)
    }

    // MARK: - Logout

    /// `GET|POST /microsoft/{tenant}/oauth2/v2.0/logout` (OpenID Connect RP-Initiated Logout 1.0): an
    /// `id_token_hint` must be one this emulator signed (an expired one is accepted) for this authority's tenant;
    /// `client_id`, when sent with it, must be its `aud`; a `post_logout_redirect_uri` must be registered for the
    /// client exactly, and gets `state` back. Anything else is refused with a 400 page, never redirected.
    func handleMicrosoftLogout(_ request: HTTPServerRequest, authority: String) -> HTTPServerResponse {
        state.withLock { $0.count(.microsoft, \.endSession) }
        func refuse(_ description: String) -> HTTPServerResponse {
            SandboxPages.error(provider: .microsoft, refusal: AuthorizationRefusal("invalid_request", description))
        }
        let viaPOST = request.method == "POST"
        let parameters: Parameters
        if viaPOST {
            guard let form = Parameters.form(of: request) else {
                return refuse("expected an application/x-www-form-urlencoded POST body")
            }
            parameters = form
        } else {
            parameters = Parameters(request.query)
        }
        if let problem = parameters.shapeProblem { return refuse(problem) }
        var clientID = parameters["client_id"]
        var subject: String?
        var tenant: String?
        if let hint = parameters["id_token_hint"] {
            switch microsoftLogoutHint(hint, authority: authority, clientID: clientID) {
            case .failure(let refusal): return refuse(refusal.description)
            case .success(let claims):
                clientID = claims.audience.first
                subject = claims.subject
                tenant = claims.string("tid")
            }
        }
        let postLogout = parameters["post_logout_redirect_uri"]
        if let refusal = checkMicrosoftLogoutClient(clientID, postLogout: postLogout) {
            return refuse(refusal)
        }
        let logout = SandboxLogout(
            clientID: clientID, subject: subject, tenantID: tenant, postLogoutRedirectURI: postLogout,
            state: parameters["state"], viaPOST: viaPOST, loggedOutAt: now)
        state.withLock { $0.logouts[.microsoft, default: []].append(logout) }
        guard let postLogout else {
            return SandboxPages.page(
                SandboxPages.document(
                    title: "Signed out (sandbox)",
                    body: "<p class=\"banner\">Sandbox identity provider (Microsoft)</p><h1>You signed out</h1>"))
        }
        var location = postLogout
        if let state = parameters["state"] {
            location += (postLogout.contains("?") ? "&" : "?") + FormURLEncoding.encode([("state", state)])
        }
        var response = HTTPServerResponse.redirect(to: location, status: 302)
        response.headers["Cache-Control"] = "no-store"
        response.headers["Referrer-Policy"] = "no-referrer"
        return response
    }

    /// The claims of a logout's `id_token_hint`: signed by this emulator (an expired one is accepted), issued by its
    /// own known tenant for this authority, with one `aud` that a sent `client_id` matches.
    func microsoftLogoutHint(_ hint: String, authority: String, clientID: String?)
        -> Result<JWTClaims, AuthorizationRefusal>
    {
        func refuse(_ description: String) -> Result<JWTClaims, AuthorizationRefusal> {
            .failure(AuthorizationRefusal("invalid_request", description))
        }
        let claims: JWTClaims
        do {
            let ring = try keyRing(for: .microsoft)
            let verified = try JWSVerifier(allowedAlgorithms: [.rs256]).verify(hint, keys: ring.publicKeySet)
            claims = try JWTClaims(payload: verified.payload)
        } catch {
            return refuse("id_token_hint was not issued by this provider: its signature does not verify")
        }
        guard let tid = claims.string("tid"), isKnownMicrosoftTenant(tid),
            claims.issuer == microsoftIssuer(tenantID: tid)
        else {
            return refuse("id_token_hint was not issued by this provider: its iss does not name its own tenant")
        }
        if !MicrosoftEmulator.multiTenantAuthorities.contains(authority), tid != authority {
            return refuse("id_token_hint was issued by tenant '\(tid)', not by this authority '\(authority)'")
        }
        guard claims.audience.count == 1, let audience = claims.audience.first else {
            return refuse("id_token_hint must have exactly one aud")
        }
        if let clientID, clientID != audience {
            return refuse("client_id '\(clip(clientID))' does not match the id_token_hint's aud")
        }
        return .success(claims)
    }

    /// Why a logout's client or `post_logout_redirect_uri` is refused: the URI needs a registered client and must
    /// be registered for it exactly; a named client must be registered. `nil` when both hold.
    func checkMicrosoftLogoutClient(_ clientID: String?, postLogout: String?) -> String? {
        if let postLogout {
            guard let clientID else {
                return "post_logout_redirect_uri needs an id_token_hint or a client_id naming the client"
            }
            guard let client = state.withLock({ $0.client(.microsoft, clientID) }) else {
                return "client_id '\(clip(clientID))' is not registered with this provider"
            }
            guard client.postLogoutRedirectURIs.contains(postLogout) else {
                return "post_logout_redirect_uri '\(clip(postLogout, limit: 200))' is not registered for this client"
            }
        } else if let clientID, state.withLock({ $0.client(.microsoft, clientID) }) == nil {
            return "client_id '\(clip(clientID))' is not registered with this provider"
        }
        return nil
    }
}
