import AuthFlowHTTP
import AuthFlowJOSE
import Foundation
import Synchronization

/// The X (Twitter) OAuth 2.0 emulator: `/x/i/oauth2/authorize`, `/x/2/oauth2/token`, `/x/2/oauth2/revoke`,
/// `/x/2/users/me`. No OpenID Connect.
extension SandboxIdentityProvider {
    static let xScopes: Set<String> = [
        "tweet.read", "tweet.write", "tweet.moderate.write", "users.read", "users.email", "follows.read",
        "follows.write", "offline.access", "space.read", "mute.read", "mute.write", "like.read", "like.write",
        "list.read", "list.write", "block.read", "block.write", "bookmark.read", "bookmark.write", "dm.read",
        "dm.write", "media.write", "timeline.read",
    ]
    static let xMaximumStateLength = 500

    /// X's authorization rules: `response_type=code`, known scopes, `state` required (at most 500
    /// characters), and PKCE required (`S256`, `plain`, or the official SDK's lowercase `s256`).
    func validateXAuthorization(_ parameters: Parameters) -> Result<AuthorizationRequest, AuthorizationRefusal> {
        let client: (client: SandboxClient, redirectURI: String)
        switch registeredClient(parameters, provider: .x) {
        case .failure(let refusal): return .failure(refusal)
        case .success(let value): client = value
        }
        guard parameters["response_type"] == "code" else {
            return .failure(AuthorizationRefusal("unsupported_response_type", "response_type must be 'code'"))
        }
        let scopes = Self.scopes(parameters["scope"])
        guard !scopes.isEmpty else {
            return .failure(AuthorizationRefusal("invalid_request", "missing required parameter scope"))
        }
        if let unknown = scopes.first(where: { !Self.xScopes.contains($0) }) {
            return .failure(AuthorizationRefusal("invalid_scope", "unknown scope '\(clip(unknown))'"))
        }
        guard let state = parameters["state"] else {
            return .failure(AuthorizationRefusal("invalid_request", "missing required parameter state"))
        }
        guard state.count <= Self.xMaximumStateLength else {
            return .failure(
                AuthorizationRefusal("invalid_request", "state must be at most \(Self.xMaximumStateLength) characters"))
        }
        guard parameters["code_challenge"] != nil else {
            return .failure(
                AuthorizationRefusal("invalid_request", "missing required parameter code_challenge (X requires PKCE)"))
        }
        guard parameters["code_challenge_method"] != nil else {
            return .failure(
                AuthorizationRefusal(
                    "invalid_request", "missing required parameter code_challenge_method (S256 or plain)"))
        }
        let challenge: PKCEChallenge?
        switch Self.challenge(parameters, acceptLowercaseS256: true) {
        case .failure(let refusal): return .failure(refusal)
        case .success(let value): challenge = value
        }
        return .success(
            AuthorizationRequest(
                provider: .x, clientID: client.client.clientID, redirectURI: client.redirectURI, scopes: scopes,
                state: state, nonce: nil, challenge: challenge))
    }

    /// X's client authentication: HTTP Basic for confidential clients (a missing header is
    /// `unauthorized_client` "Missing valid authorization header"); `client_id` in the body for public ones.
    func authenticateXClient(_ form: Parameters, request: HTTPServerRequest) -> Result<SandboxClient, OAuthFailure> {
        let missingHeader = OAuthFailure("unauthorized_client", "Missing valid authorization header", status: 401)
        switch BasicCredentials.parse(request) {
        case nil:
            guard let clientID = form["client_id"], let client = state.withLock({ $0.client(.x, clientID) }) else {
                return .failure(missingHeader)
            }
            guard !client.isConfidential else { return .failure(missingHeader) }
            return .success(client)
        case .failure?:
            return .failure(missingHeader)
        case .success(let credentials)?:
            guard let client = state.withLock({ $0.client(.x, credentials.clientID) }),
                let expected = client.clientSecret
            else {
                return .failure(.invalidClient("client authentication failed: unknown confidential client"))
            }
            guard constantTimeEquals(credentials.clientSecret, expected) else {
                return .failure(.invalidClient("client authentication failed: wrong client secret"))
            }
            if let bodyID = form["client_id"], bodyID != client.clientID {
                return .failure(.invalidRequest("client_id in the body differs from the HTTP Basic client id"))
            }
            return .success(client)
        }
    }

    /// `POST /x/2/oauth2/token`: codes valid 30 s, access tokens 2 h, refresh tokens only with
    /// `offline.access` and rotating: each refresh returns a new one, and presenting a used one revokes the grant.
    func handleXToken(_ request: HTTPServerRequest) -> HTTPServerResponse {
        state.withLock { $0.count(.x, \.token) }
        return answeringOAuthFailures { () throws(OAuthFailure) -> HTTPServerResponse in
            let (form, client) = try authenticatedForm(request, authenticate: authenticateXClient)
            switch form["grant_type"] {
            case "authorization_code"?:
                let (code, record) = try redeemCode(
                    in: form, client: client, provider: .x, policy: .init(missingVerifierIsInvalidRequest: true))
                let tokens = issueTokens(
                    code: code, record: record, withRefresh: record.request.hasScope("offline.access"))
                return xTokenResponse(
                    accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, scopes: tokens.grant.scopes)
            case "refresh_token"?:
                state.withLock { $0.count(.x, \.refreshGrants) }
                guard let refreshToken = form["refresh_token"] else {
                    throw .invalidRequest("missing required parameter refresh_token")
                }
                let newAccess = randomToken(prefix: Self.accessTokenPrefix(.x))
                let newRefresh = randomToken(prefix: Self.refreshTokenPrefix(.x))
                let expiresAt = now.addingTimeInterval(Double(SandboxProvider.x.accessTokenLifetime))
                let outcome = state.withLock { state -> Result<GrantRecord, OAuthFailure> in
                    guard let record = state.refreshTokens[refreshToken],
                        let grant = state.liveGrant(refreshToken: refreshToken, provider: .x, clientID: client.clientID)
                    else {
                        return .failure(
                            .invalidGrant("the refresh token is unknown, revoked, or issued to another client"))
                    }
                    guard !record.consumed else {
                        state.revokeGrant(grant.id)
                        return .failure(
                            .invalidGrant(
                                "the refresh token was already used; every token of this grant is now revoked"))
                    }
                    state.refreshTokens[refreshToken]?.consumed = true
                    state.refreshTokens[newRefresh] = RefreshTokenRecord(grantID: grant.id)
                    state.accessTokens[newAccess] = AccessTokenRecord(grantID: grant.id, expiresAt: expiresAt)
                    return .success(grant)
                }
                let grant = try outcome.get()
                return xTokenResponse(accessToken: newAccess, refreshToken: newRefresh, scopes: grant.scopes)
            case let other:
                throw .unsupportedGrantType(other)
            }
        }
    }

    func xTokenResponse(accessToken: String, refreshToken: String?, scopes: [String]) -> HTTPServerResponse {
        var body: [String: JSONValue] = [
            "token_type": .string("bearer"), "expires_in": .integer(SandboxProvider.x.accessTokenLifetime),
            "access_token": .string(accessToken), "scope": .string(scopes.joined(separator: " ")),
        ]
        if let refreshToken { body["refresh_token"] = .string(refreshToken) }
        return tokenResponse(body)
    }

    /// `POST /x/2/oauth2/revoke`: same client authentication as the token endpoint; `{"revoked": true}`.
    func handleXRevoke(_ request: HTTPServerRequest) -> HTTPServerResponse {
        state.withLock { $0.count(.x, \.revocation) }
        return answeringOAuthFailures { () throws(OAuthFailure) -> HTTPServerResponse in
            let (form, client) = try authenticatedForm(request, authenticate: authenticateXClient)
            guard let token = form["token"] else {
                throw .invalidRequest("missing required parameter token")
            }
            revoke(
                token: token, hint: form["token_type_hint"], provider: .x, clientID: client.clientID,
                rules: RevocationRules())
            return tokenResponse(["revoked": .bool(true)])
        }
    }

    /// `GET /x/2/users/me`: needs a Bearer user token with both `tweet.read` and `users.read`; answers
    /// `{"data": {"id", "name", "username"}}` (plus `confirmed_email` when asked for with `users.email`).
    func handleXMe(_ request: HTTPServerRequest) -> HTTPServerResponse {
        state.withLock { $0.count(.x, \.userinfo) }
        func problem(_ title: String, _ detail: String, status: Int) -> HTTPServerResponse {
            let body: JSONValue = .object([
                "title": .string(title), "type": .string("about:blank"), "status": .integer(Int64(status)),
                "detail": .string(detail),
            ])
            var response = HTTPServerResponse.json(body.serialized(), status: status)
            response.headers["Cache-Control"] = "no-store"
            return response
        }
        guard let token = bearerToken(of: request) else {
            return problem("Unauthorized", "Unauthorized: a Bearer user access token is required", status: 401)
        }
        let now = self.now
        let grant: GrantRecord
        switch state.withLock({ $0.liveGrant(accessToken: token, provider: .x, now: now) }) {
        case .failure(let reason): return problem("Unauthorized", "Unauthorized: \(reason.description)", status: 401)
        case .success(let value): grant = value
        }
        let missing = ["tweet.read", "users.read"].filter { !grant.scopes.contains($0) }
        guard missing.isEmpty else {
            return problem(
                "Forbidden",
                "this endpoint requires the scopes tweet.read and users.read; missing "
                    + missing.joined(separator: ", "), status: 403)
        }
        let identity = grant.identity
        var data: [String: JSONValue] = [
            "id": .string(identity.subject), "name": .string(identity.name ?? identity.username ?? identity.subject),
            "username": .string(identity.username ?? "user_" + identity.subject),
        ]
        let userFields = Self.scopes(Parameters(request.query)["user.fields"], commaSeparated: true)
        if userFields.contains("confirmed_email"), grant.scopes.contains("users.email"), let email = identity.email,
            identity.emailVerified
        {
            data["confirmed_email"] = .string(email)
        }
        return tokenResponse(["data": .object(data)])
    }
}
