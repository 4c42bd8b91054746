import AuthFlowHTTP
import AuthFlowJOSE
import Foundation
import Synchronization

/// The Sign in with Apple emulator: `/apple/auth/authorize`, `/apple/auth/token`, `/apple/auth/keys`,
/// `/apple/auth/revoke`, `/apple/.well-known/openid-configuration`.
extension SandboxIdentityProvider {
    static let appleScopes: Set<String> = ["openid", "name", "email"]

    /// Apple's authorization rules: `response_type` `code` or `code id_token`; `id_token` needs
    /// `fragment` or `form_post`; the `name` or `email` scope needs `form_post`; PKCE only if sent.
    func validateAppleAuthorization(_ parameters: Parameters) -> Result<AuthorizationRequest, AuthorizationRefusal> {
        let client: (client: SandboxClient, redirectURI: String)
        switch registeredClient(parameters, provider: .apple) {
        case .failure(let refusal): return .failure(refusal)
        case .success(let value): client = value
        }
        let responseTypes = Set(Self.scopes(parameters["response_type"]))
        guard responseTypes == ["code"] || responseTypes == ["code", "id_token"] else {
            return .failure(
                AuthorizationRefusal(
                    "unsupported_response_type",
                    "response_type must be 'code' or 'code id_token', found "
                        + (parameters["response_type"].map { "'\(clip($0))'" } ?? "none")))
        }
        let mode: AuthorizationRequest.ResponseMode
        switch parameters["response_mode"] {
        case nil: mode = responseTypes.contains("id_token") ? .fragment : .query
        case let text?:
            guard let parsed = AuthorizationRequest.ResponseMode(rawValue: text) else {
                return .failure(
                    AuthorizationRefusal("invalid_request", "response_mode must be query, fragment or form_post"))
            }
            mode = parsed
        }
        if responseTypes.contains("id_token"), mode == .query {
            return .failure(
                AuthorizationRefusal(
                    "invalid_request",
                    "response_mode must be form_post or fragment when response_type includes id_token"))
        }
        let scopes = Self.scopes(parameters["scope"])
        if let unknown = scopes.first(where: { !Self.appleScopes.contains($0) }) {
            return .failure(AuthorizationRefusal("invalid_scope", "unsupported scope '\(clip(unknown))'"))
        }
        if scopes.contains("name") || scopes.contains("email"), mode != .formPost {
            return .failure(
                AuthorizationRefusal(
                    "invalid_request", "response_mode must be form_post when name or email scope is requested"))
        }
        let challenge: PKCEChallenge?
        switch Self.challenge(parameters) {
        case .failure(let refusal): return .failure(refusal)
        case .success(let value): challenge = value
        }
        return .success(
            AuthorizationRequest(
                provider: .apple, clientID: client.client.clientID, redirectURI: client.redirectURI,
                responseTypes: responseTypes, responseMode: mode, scopes: scopes, state: parameters["state"],
                nonce: parameters["nonce"], challenge: challenge))
    }

    /// Apple's client authentication: `client_secret_post` only, the secret being an ES256 JWT.
    func authenticateAppleClient(
        _ form: Parameters, request: HTTPServerRequest
    ) -> Result<SandboxClient, OAuthFailure> {
        guard request.headers["Authorization"] == nil else {
            return .failure(
                .invalidClient(
                    "Apple authenticates clients with client_secret_post only; send client_id and client_secret in the body",
                    status: 400))
        }
        guard let clientID = form["client_id"] else {
            return .failure(.invalidClient("missing required parameter client_id", status: 400))
        }
        guard let client = state.withLock({ $0.client(.apple, clientID) }), let credentials = client.apple else {
            return .failure(.invalidClient("client_id '\(clip(clientID))' is not registered", status: 400))
        }
        guard let secret = form["client_secret"] else {
            return .failure(.invalidClient("missing required parameter client_secret", status: 400))
        }
        if let problem = AppleClientSecretValidator(client: client, credentials: credentials).problem(
            with: secret, now: now)
        {
            return .failure(problem)
        }
        return .success(client)
    }

    /// `POST /apple/auth/token`: the authorization-code and refresh-token grants.
    func handleAppleToken(_ request: HTTPServerRequest) -> HTTPServerResponse {
        state.withLock { $0.count(.apple, \.token) }
        return answeringOAuthFailures { () throws(OAuthFailure) -> HTTPServerResponse in
            let (form, client) = try authenticatedForm(request, authenticate: authenticateAppleClient)
            switch form["grant_type"] {
            case "authorization_code"?:
                let (code, record) = try redeemCode(
                    in: form, client: client, provider: .apple, policy: .init(ignoresUnexpectedVerifier: true))
                let tokens = issueTokens(code: code, record: record, withRefresh: true)
                do throws(SandboxError) {
                    let idToken = try signIDToken(
                        provider: .apple, clientID: client.clientID, identity: record.identity,
                        scopes: record.request.scopes,
                        nonce: record.request.nonce, authTime: record.authTime, accessToken: tokens.accessToken)
                    var body: [String: JSONValue] = [
                        "access_token": .string(tokens.accessToken), "token_type": .string("Bearer"),
                        "expires_in": .integer(SandboxProvider.apple.accessTokenLifetime), "id_token": .string(idToken),
                    ]
                    if let refresh = tokens.refreshToken { body["refresh_token"] = .string(refresh) }
                    return tokenResponse(body)
                } catch {
                    throw OAuthFailure("server_error", error.message, status: 500)
                }
            case "refresh_token"?:
                let grant = try refreshGrant(
                    in: form, client: client, provider: .apple,
                    refusal: "the refresh token is unknown, revoked, or issued to another client")
                let accessToken = issueAccessToken(grant: grant)
                do throws(SandboxError) {
                    let idToken = try signIDToken(
                        provider: .apple, clientID: client.clientID, identity: grant.identity, scopes: grant.scopes,
                        nonce: nil, authTime: grant.authTime, accessToken: accessToken)
                    // Apple never rotates: the response has no refresh_token and the old one keeps working.
                    return tokenResponse([
                        "access_token": .string(accessToken), "token_type": .string("Bearer"),
                        "expires_in": .integer(SandboxProvider.apple.accessTokenLifetime), "id_token": .string(idToken),
                    ])
                } catch {
                    throw OAuthFailure("server_error", error.message, status: 500)
                }
            case let other:
                throw .unsupportedGrantType(other)
            }
        }
    }

    /// `POST /apple/auth/revoke`: authenticates the client, then answers 200 whatever the token.
    func handleAppleRevoke(_ request: HTTPServerRequest) -> HTTPServerResponse {
        state.withLock { $0.count(.apple, \.revocation) }
        return answeringOAuthFailures { () throws(OAuthFailure) -> HTTPServerResponse in
            let (form, client) = try authenticatedForm(request, authenticate: authenticateAppleClient)
            guard let token = form["token"] else {
                throw .invalidRequest("missing required parameter token")
            }
            if let hint = form["token_type_hint"], hint != "access_token", hint != "refresh_token" {
                throw .invalidRequest("token_type_hint must be access_token or refresh_token")
            }
            revoke(
                token: token, hint: form["token_type_hint"], provider: .apple, clientID: client.clientID,
                rules: RevocationRules(refreshTokenWithdrawsConsent: true))
            var response = HTTPServerResponse.empty(status: 200)
            response.headers["Cache-Control"] = "no-store"
            return response
        }
    }

    /// `GET /apple/.well-known/openid-configuration`, with this sandbox's endpoints and issuer.
    func appleDiscovery() -> JSONValue {
        let endpoints = endpoints(for: .apple)
        return .object([
            "issuer": .string(endpoints.issuer ?? ""),
            "authorization_endpoint": .string(endpoints.authorization),
            "token_endpoint": .string(endpoints.token),
            "revocation_endpoint": .string(endpoints.revocation ?? ""),
            "jwks_uri": .string(endpoints.jwks ?? ""),
            "response_types_supported": .array([.string("code")]),
            "response_modes_supported": .array(["query", "fragment", "form_post"].map(JSONValue.string)),
            "subject_types_supported": .array([.string("pairwise")]),
            "id_token_signing_alg_values_supported": .array([.string("RS256")]),
            "scopes_supported": .array(["openid", "email", "name"].map(JSONValue.string)),
            "token_endpoint_auth_methods_supported": .array([.string("client_secret_post")]),
            "claims_supported": .array(
                [
                    "aud", "email", "email_verified", "exp", "iat", "is_private_email", "iss", "nonce",
                    "nonce_supported", "real_user_status", "sub", "transfer_sub",
                ].map(JSONValue.string)),
        ])
    }
}
