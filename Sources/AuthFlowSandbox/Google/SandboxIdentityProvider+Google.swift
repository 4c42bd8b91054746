import AuthFlowHTTP
import AuthFlowJOSE
import Foundation
import Synchronization

/// The Google emulator: `/google/o/oauth2/v2/auth`, `/google/token`, `/google/v1/userinfo`,
/// `/google/oauth2/v3/certs`, `/google/revoke`, `/google/.well-known/openid-configuration`.
extension SandboxIdentityProvider {
    static let googleScopes: Set<String> = ["openid", "email", "profile"]

    /// Google's authorization rules: `response_type=code`, a non-empty scope of `openid`/`email`/`profile`,
    /// PKCE `S256` or `plain` when sent, `access_type` online/offline, `prompt` none/consent/select_account.
    func validateGoogleAuthorization(_ parameters: Parameters) -> Result<AuthorizationRequest, AuthorizationRefusal> {
        let client: (client: SandboxClient, redirectURI: String)
        switch registeredClient(parameters, provider: .google, redirectMismatchError: "redirect_uri_mismatch") {
        case .failure(let refusal): return .failure(refusal)
        case .success(let value): client = value
        }
        guard parameters["response_type"] == "code" else {
            return .failure(
                AuthorizationRefusal(
                    "unsupported_response_type",
                    "response_type must be 'code', found "
                        + (parameters["response_type"].map { "'\(clip($0))'" } ?? "none")))
        }
        if let mode = parameters["response_mode"], mode != "query" {
            return .failure(AuthorizationRefusal("invalid_request", "response_mode must be query for the code flow"))
        }
        let scopes = Self.scopes(parameters["scope"])
        guard !scopes.isEmpty else {
            return .failure(AuthorizationRefusal("invalid_request", "missing required parameter scope"))
        }
        if let unknown = scopes.first(where: { !Self.googleScopes.contains($0) }) {
            return .failure(AuthorizationRefusal("invalid_scope", "unsupported scope '\(clip(unknown))'"))
        }
        let offline: Bool
        switch parameters["access_type"] {
        case nil, "online"?: offline = false
        case "offline"?: offline = true
        case let other?:
            return .failure(
                AuthorizationRefusal("invalid_request", "access_type must be online or offline, found '\(clip(other))'")
            )
        }
        let prompts = Self.scopes(parameters["prompt"])
        if let unknown = prompts.first(where: { !["none", "consent", "select_account"].contains($0) }) {
            return .failure(AuthorizationRefusal("invalid_request", "unsupported prompt value '\(clip(unknown))'"))
        }
        if prompts.contains("none"), prompts.count > 1 {
            return .failure(AuthorizationRefusal("invalid_request", "prompt=none cannot be combined with other values"))
        }
        let challenge: PKCEChallenge?
        switch Self.challenge(parameters) {
        case .failure(let refusal): return .failure(refusal)
        case .success(let value): challenge = value
        }
        var request = AuthorizationRequest(
            provider: .google, clientID: client.client.clientID, redirectURI: client.redirectURI, scopes: scopes,
            state: parameters["state"], nonce: parameters["nonce"], challenge: challenge, offlineAccess: offline,
            forceConsent: prompts.contains("consent"))
        if let refusal = Self.readStepUp(parameters, into: &request) { return .failure(refusal) }
        if configuration.dpop, let refusal = Self.readDPoPJKT(parameters, into: &request) { return .failure(refusal) }
        return .success(request)
    }

    /// Google's client authentication: `client_secret_post` or `client_secret_basic`, never both.
    func authenticateGoogleClient(_ form: Parameters, request: HTTPServerRequest) -> Result<SandboxClient, OAuthFailure>
    {
        if configuration.fapi2 { return authenticateFAPIClient(form, request: request) }
        var basic: BasicCredentials?
        switch BasicCredentials.parse(request) {
        case nil: basic = nil
        case .failure(let failure)?: return .failure(failure)
        case .success(let credentials)?: basic = credentials
        }
        if basic != nil, form.contains("client_secret") {
            return .failure(
                .invalidRequest("the client authenticated with both HTTP Basic and client_secret in the body"))
        }
        if let basic, let bodyID = form["client_id"], bodyID != basic.clientID {
            return .failure(.invalidRequest("client_id in the body differs from the HTTP Basic client id"))
        }
        guard let clientID = basic?.clientID ?? form["client_id"], !clientID.isEmpty else {
            return .failure(.invalidClient("missing client authentication (client_secret_post or client_secret_basic)"))
        }
        guard let client = state.withLock({ $0.client(.google, clientID) }), let expected = client.clientSecret else {
            return .failure(.invalidClient("The OAuth client was not found."))
        }
        guard let secret = basic?.clientSecret ?? form["client_secret"] else {
            return .failure(.invalidClient("missing client_secret"))
        }
        guard constantTimeEquals(secret, expected) else {
            return .failure(.invalidClient("client authentication failed: wrong client secret"))
        }
        return .success(client)
    }

    /// `POST /google/token`.
    func handleGoogleToken(_ request: HTTPServerRequest) -> HTTPServerResponse {
        state.withLock { $0.count(.google, \.token) }
        return answeringOAuthFailures { () throws(OAuthFailure) -> HTTPServerResponse in
            // The DPoP proof first (FAPI mode: required), so a nonce challenge spends no client assertion.
            let jkt = try tokenRequestProof(request)
            let tokenType: JSONValue = jkt == nil ? "Bearer" : "DPoP"
            let (form, client) = try authenticatedForm(request, authenticate: authenticateGoogleClient)
            switch form["grant_type"] {
            case "authorization_code"?:
                let (code, record) = try redeemCode(in: form, client: client, provider: .google, policy: .init())
                try checkCodeBinding(record.request.dpopJKT, jkt)
                let tokens = issueTokens(code: code, record: record, withRefresh: record.issuesRefreshToken)
                if let jkt { state.withLock { $0.dpopBindings[tokens.grant.id] = jkt } }
                var body: [String: JSONValue] = [
                    "access_token": .string(tokens.accessToken), "token_type": tokenType,
                    "expires_in": .integer(SandboxProvider.google.accessTokenLifetime),
                    "scope": .string(record.request.scopes.joined(separator: " ")),
                ]
                if let refresh = tokens.refreshToken { body["refresh_token"] = .string(refresh) }
                if record.request.hasScope("openid") {
                    do throws(SandboxError) {
                        body["id_token"] = .string(
                            try signIDToken(
                                provider: .google, clientID: client.clientID, identity: record.identity,
                                scopes: record.request.scopes, nonce: record.request.nonce, authTime: record.authTime,
                                accessToken: tokens.accessToken))
                    } catch {
                        throw OAuthFailure("server_error", error.message, status: 500)
                    }
                }
                return tokenResponse(body)
            case "refresh_token"?:
                let grant = try refreshGrant(
                    in: form, client: client, provider: .google, refusal: "Token has been expired or revoked.")
                let bound = state.withLock { $0.dpopBindings[grant.id] }
                if jkt != nil || bound != nil { try requireBinding(bound, jkt ?? "", what: "the refresh token") }
                let accessToken = issueAccessToken(grant: grant)
                var body: [String: JSONValue] = [
                    "access_token": .string(accessToken), "token_type": tokenType,
                    "expires_in": .integer(SandboxProvider.google.accessTokenLifetime),
                    "scope": .string(grant.scopes.joined(separator: " ")),
                ]
                if grant.scopes.contains("openid") {
                    do throws(SandboxError) {
                        body["id_token"] = .string(
                            try signIDToken(
                                provider: .google, clientID: client.clientID, identity: grant.identity,
                                scopes: grant.scopes,
                                nonce: nil, authTime: grant.authTime, accessToken: accessToken))
                    } catch {
                        throw OAuthFailure("server_error", error.message, status: 500)
                    }
                }
                return tokenResponse(body)
            case let other:
                throw .unsupportedGrantType(other)
            }
        }
    }

    /// `GET /google/v1/userinfo`: the access token must come in an `Authorization: Bearer` header; one in the
    /// query string is refused. Booleans are JSON booleans.
    func handleGoogleUserinfo(_ request: HTTPServerRequest) -> HTTPServerResponse {
        state.withLock { $0.count(.google, \.userinfo) }
        func refuse(_ error: String, _ description: String, status: Int) -> HTTPServerResponse {
            var response = OAuthFailure(error, description, status: status).oauthResponse()
            response.headers["WWW-Authenticate"] = "Bearer realm=\"sandbox\", error=\"\(error)\""
            return response
        }
        if request.query.contains(where: { $0.0 == "access_token" }) {
            return refuse(
                "invalid_request", "the access token must be sent in the Authorization header, not the query string",
                status: 400)
        }
        let token: String
        var jkt: String?
        if configuration.fapi2 || (configuration.dpop && request.headers["Authorization"]?.hasPrefix("DPoP ") == true) {
            switch fapiUserinfoProof(request) {
            case .failure(let refusal): return refusal.response
            case .success(let value): (token, jkt) = (value.token, value.jkt)
            }
        } else {
            guard let bearer = bearerToken(of: request) else {
                return refuse("invalid_request", "missing Authorization: Bearer header", status: 401)
            }
            token = bearer
        }
        let now = self.now
        let grant: GrantRecord
        switch state.withLock({ $0.liveGrant(accessToken: token, provider: .google, now: now) }) {
        case .failure(let problem): return refuse("invalid_token", problem.description, status: 401)
        case .success(let value): grant = value
        }
        let bound = state.withLock { $0.dpopBindings[grant.id] }
        if bound != jkt {
            return resourceRefusal(
                "invalid_token",
                jkt == nil
                    ? "the access token is bound to a DPoP key: present it as Authorization: DPoP with a proof"
                    : "the access token is bound to another key")
        }
        let identity = grant.identity
        var body: [String: JSONValue] = ["sub": .string(identity.subject)]
        if let domain = identity.hostedDomain { body["hd"] = .string(domain) }
        if grant.scopes.contains("email"), let email = identity.email {
            body["email"] = .string(email)
            body["email_verified"] = .bool(identity.emailVerified)
        }
        if grant.scopes.contains("profile") {
            if let name = identity.name { body["name"] = .string(name) }
            if let given = identity.givenName { body["given_name"] = .string(given) }
            if let family = identity.familyName { body["family_name"] = .string(family) }
        }
        return tokenResponse(body)
    }

    /// `POST /google/revoke`: revokes the grant behind an access or refresh token; 400 `invalid_token` when
    /// the token is unknown, as Google answers.
    func handleGoogleRevoke(_ request: HTTPServerRequest) -> HTTPServerResponse {
        state.withLock { $0.count(.google, \.revocation) }
        let form = Parameters.form(of: request) ?? Parameters(request.query)
        if let problem = form.shapeProblem { return OAuthFailure.invalidRequest(problem).oauthResponse() }
        // Google takes revocations unauthenticated; the FAPI 2.0 mode authenticates the client as at the token endpoint.
        if configuration.fapi2 {
            // The revocation endpoint's own URL is an audience too (RFC 7523 §3: any value naming the server).
            let endpoint = endpoints(for: .google).revocation
            // A request without an assertion is refused as unauthenticated before the proof is looked at.
            if form["client_assertion"] == nil,
                case .failure(let failure) = authenticateFAPIClient(form, request: request, endpoint: endpoint)
            {
                return failure.oauthResponse()
            }
            do throws(OAuthFailure) {
                try checkFAPIRevocationProof(request, token: form["token"])
            } catch {
                return error.oauthResponse()
            }
            if case .failure(let failure) = authenticateFAPIClient(form, request: request, endpoint: endpoint) {
                return failure.oauthResponse()
            }
        }
        guard let token = form["token"] ?? Parameters(request.query)["token"] else {
            return OAuthFailure.invalidRequest("missing required parameter token").oauthResponse()
        }
        // Google answers "Token expired or revoked" for an access token that no longer works, as for an unknown one.
        let now = self.now
        let alreadyDead = state.withLock { state -> Bool in
            guard let record = state.accessTokens[token] else { return false }
            return record.revoked || state.grants[record.grantID]?.revoked != false || record.expiresAt <= now
        }
        let kind = revoke(
            token: token, hint: form["token_type_hint"], provider: .google, clientID: nil,
            rules: RevocationRules(accessTokenRevokesGrant: true))
        guard kind != .unknown, !alreadyDead else {
            return OAuthFailure("invalid_token", "Token expired or revoked", status: 400).oauthResponse()
        }
        return tokenResponse([:])
    }

    /// `GET /google/.well-known/openid-configuration`, with this sandbox's endpoints and issuer.
    func googleDiscovery() -> JSONValue {
        let endpoints = endpoints(for: .google)
        var document: [String: JSONValue] = [
            "issuer": .string(endpoints.issuer ?? ""),
            "authorization_endpoint": .string(endpoints.authorization),
            "token_endpoint": .string(endpoints.token),
            "userinfo_endpoint": .string(endpoints.userinfo ?? ""),
            "revocation_endpoint": .string(endpoints.revocation ?? ""),
            "jwks_uri": .string(endpoints.jwks ?? ""),
            "response_types_supported": .array([.string("code")]),
            "subject_types_supported": .array([.string("public")]),
            "id_token_signing_alg_values_supported": .array([.string("RS256")]),
            "scopes_supported": .array(["openid", "email", "profile"].map(JSONValue.string)),
            "token_endpoint_auth_methods_supported": .array(
                ["client_secret_post", "client_secret_basic"].map(JSONValue.string)),
            "claims_supported": .array(
                [
                    "aud", "email", "email_verified", "exp", "family_name", "given_name", "iat", "iss", "name",
                    "sub", "nonce", "at_hash", "azp",
                ].map(JSONValue.string)),
            "code_challenge_methods_supported": .array(["plain", "S256"].map(JSONValue.string)),
            "grant_types_supported": .array(["authorization_code", "refresh_token"].map(JSONValue.string)),
        ]
        if configuration.fapi2 { return .object(document.merging(fapiDiscoveryMembers()) { $1 }) }
        if configuration.dpop { document["dpop_signing_alg_values_supported"] = ["ES256", "EdDSA", "PS256"] }
        return .object(document)
    }
}
