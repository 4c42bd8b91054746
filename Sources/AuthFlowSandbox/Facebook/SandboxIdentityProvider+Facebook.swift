import AuthFlowHTTP
import AuthFlowJOSE
import Foundation
import Synchronization

/// The Facebook emulator: `/facebook/v19.0/dialog/oauth`, `/facebook/v19.0/oauth/access_token` (GET only),
/// `/facebook/me` (Graph, with `appsecret_proof`), and for the OIDC code flow a JWKS and discovery document.
/// Refusals use the Graph API error shape `{"error": {"message", "type": "OAuthException", "code", …}}`.
extension SandboxIdentityProvider {
    static let facebookScopes: Set<String> = ["public_profile", "email", "openid"]
    static let facebookFields: Set<String> = ["id", "name", "email", "first_name", "last_name"]
    /// Lifetime of a token from `grant_type=fb_exchange_token` (about 60 days).
    static let facebookLongLivedLifetime: Int64 = 5_183_944

    /// Facebook's dialog rules: `response_type` `code` (the default), scopes among
    /// `public_profile`, `email`, `openid` (comma- or space-separated), PKCE when sent.
    func validateFacebookAuthorization(_ parameters: Parameters) -> Result<AuthorizationRequest, AuthorizationRefusal> {
        let client: (client: SandboxClient, redirectURI: String)
        switch registeredClient(parameters, provider: .facebook) {
        case .failure(let refusal): return .failure(refusal)
        case .success(let value): client = value
        }
        if let responseType = parameters["response_type"], responseType != "code" {
            return .failure(
                AuthorizationRefusal(
                    "unsupported_response_type",
                    "this sandbox supports response_type=code only, found '\(clip(responseType))'"))
        }
        var scopes = Self.scopes(parameters["scope"], commaSeparated: true)
        if let unknown = scopes.first(where: { !Self.facebookScopes.contains($0) }) {
            return .failure(AuthorizationRefusal("invalid_scope", "Invalid Scopes: \(clip(unknown))"))
        }
        if !scopes.contains("public_profile") { scopes.insert("public_profile", at: 0) }
        let challenge: PKCEChallenge?
        switch Self.challenge(parameters) {
        case .failure(let refusal): return .failure(refusal)
        case .success(let value): challenge = value
        }
        return .success(
            AuthorizationRequest(
                provider: .facebook, clientID: client.client.clientID, redirectURI: client.redirectURI, scopes: scopes,
                state: parameters["state"], nonce: parameters["nonce"], challenge: challenge))
    }

    /// `GET /facebook/v19.0/oauth/access_token`: the code exchange with `client_secret` in the query string,
    /// and the `fb_exchange_token` long-lived-token exchange. No refresh tokens.
    func handleFacebookToken(_ request: HTTPServerRequest) -> HTTPServerResponse {
        state.withLock { $0.count(.facebook, \.token) }
        let query = Parameters(request.query)
        if let problem = query.shapeProblem { return OAuthFailure.invalidRequest(problem).graphResponse() }
        guard let clientID = query["client_id"] else {
            return OAuthFailure.invalidRequest("Missing client_id parameter.").withGraphCode(101).graphResponse()
        }
        guard let client = state.withLock({ $0.client(.facebook, clientID) }), let expected = client.clientSecret else {
            return OAuthFailure.invalidClient(
                "Error validating application. Invalid application ID.", status: 400, graphCode: 101
            ).graphResponse()
        }
        guard let secret = query["client_secret"] else {
            return OAuthFailure.invalidClient("Missing client_secret parameter.", status: 400, graphCode: 1)
                .graphResponse()
        }
        guard constantTimeEquals(secret, expected) else {
            return OAuthFailure.invalidClient("Error validating client secret.", status: 400, graphCode: 1)
                .graphResponse()
        }
        switch query["grant_type"] {
        case nil, "authorization_code"?:
            return redeemFacebookCode(query, clientID: clientID)
        case "fb_exchange_token"?:
            return exchangeFacebookToken(query, clientID: clientID)
        case let other?:
            return OAuthFailure.unsupportedGrantType(other).graphResponse()
        }
    }

    /// The code exchange: `redirect_uri` and `code` required; an id_token with the `openid` scope.
    func redeemFacebookCode(_ query: Parameters, clientID: String) -> HTTPServerResponse {
        guard let redirectURI = query["redirect_uri"] else {
            return OAuthFailure.invalidRequest("Missing redirect_uri parameter.").graphResponse()
        }
        guard let code = query["code"] else {
            return OAuthFailure.invalidRequest("Missing code parameter.").graphResponse()
        }
        let now = self.now
        let redeemed = state.withLock {
            $0.redeemCode(
                code, provider: .facebook, clientID: clientID, redirectURI: redirectURI,
                verifier: query["code_verifier"], policy: .init(), now: now)
        }
        let record: CodeRecord
        switch redeemed {
        case .failure(let failure): return failure.graphResponse()
        case .success(let value): record = value
        }
        let tokens = issueTokens(code: code, record: record, withRefresh: false)
        var body: [String: JSONValue] = [
            "access_token": .string(tokens.accessToken), "token_type": .string("bearer"),
            "expires_in": .integer(SandboxProvider.facebook.accessTokenLifetime),
        ]
        if record.request.hasScope("openid") {
            do {
                body["id_token"] = .string(
                    try signIDToken(
                        provider: .facebook, clientID: clientID, identity: record.identity,
                        scopes: record.request.scopes, nonce: record.request.nonce, authTime: record.authTime,
                        accessToken: nil))
            } catch {
                return OAuthFailure("server_error", error.message, status: 500).graphResponse()
            }
        }
        return tokenResponse(body)
    }

    /// The `fb_exchange_token` exchange: a live short-lived token of this app for a long-lived one.
    func exchangeFacebookToken(_ query: Parameters, clientID: String) -> HTTPServerResponse {
        guard let shortLived = query["fb_exchange_token"] else {
            return OAuthFailure.invalidRequest("Missing fb_exchange_token parameter.").graphResponse()
        }
        let now = self.now
        let grant: GrantRecord
        switch state.withLock({ $0.liveGrant(accessToken: shortLived, provider: .facebook, now: now) }) {
        case .failure(let problem):
            return OAuthFailure(
                "invalid_token", "Error validating access token: \(problem.description)", graphCode: 190
            )
            .graphResponse()
        case .success(let value): grant = value
        }
        guard grant.clientID == clientID else {
            return OAuthFailure(
                "invalid_token", "Error validating access token: issued to another app", graphCode: 190
            )
            .graphResponse()
        }
        let accessToken = randomToken(prefix: Self.accessTokenPrefix(.facebook))
        let expiresAt = now.addingTimeInterval(Double(Self.facebookLongLivedLifetime))
        state.withLock { $0.accessTokens[accessToken] = AccessTokenRecord(grantID: grant.id, expiresAt: expiresAt) }
        return tokenResponse([
            "access_token": .string(accessToken), "token_type": .string("bearer"),
            "expires_in": .integer(Self.facebookLongLivedLifetime),
        ])
    }

    /// `GET /facebook/me?fields=…`: only the requested fields (`id,name` by default), `email` only with the
    /// `email` permission, and `appsecret_proof` = hex(HMAC-SHA256(app secret, access token)) when the app
    /// requires it.
    func handleFacebookMe(_ request: HTTPServerRequest) -> HTTPServerResponse {
        state.withLock { $0.count(.facebook, \.userinfo) }
        let query = Parameters(request.query)
        if let problem = query.shapeProblem { return OAuthFailure.invalidRequest(problem).graphResponse() }
        let headerToken = bearerToken(of: request)
        if let headerToken, let queryToken = query["access_token"], headerToken != queryToken {
            return OAuthFailure.invalidRequest("two different access tokens were sent").graphResponse()
        }
        guard let token = headerToken ?? query["access_token"] else {
            return OAuthFailure(
                "invalid_request", "An active access token must be used to query information about the current user.",
                graphCode: 2500
            ).graphResponse()
        }
        let now = self.now
        let grant: GrantRecord
        switch state.withLock({ $0.liveGrant(accessToken: token, provider: .facebook, now: now) }) {
        case .failure(let problem):
            var failure = OAuthFailure(
                "invalid_token", "Error validating access token: \(problem.description)", status: 400, graphCode: 190)
            if problem == .expired { failure.graphSubcode = 463 }
            return failure.graphResponse()
        case .success(let value): grant = value
        }
        guard let client = state.withLock({ $0.client(.facebook, grant.clientID) }), let secret = client.clientSecret
        else {
            return OAuthFailure("invalid_token", "Error validating access token: the app is gone", graphCode: 190)
                .graphResponse()
        }
        if client.requiresAppSecretProof {
            guard let proof = query["appsecret_proof"] else {
                return OAuthFailure.invalidRequest("API calls from the server require an appsecret_proof argument")
                    .graphResponse()
            }
            let expected = Hex.encode(Digest.hmacSHA256(key: Array(secret.utf8), message: Array(token.utf8)))
            guard constantTimeEquals(proof.lowercased(), expected) else {
                return OAuthFailure.invalidRequest("Invalid appsecret_proof provided in the API argument")
                    .graphResponse()
            }
        }
        var fields = ["id", "name"]
        if let requested = query["fields"] {
            fields = requested.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter {
                !$0.isEmpty
            }
            if let unknown = fields.first(where: { !Self.facebookFields.contains($0) }) {
                return OAuthFailure.invalidRequest(
                    "(#100) Tried accessing nonexisting field (\(clip(unknown))) on node type (User)"
                ).graphResponse()
            }
        }
        return tokenResponse(Self.facebookUser(fields: fields, grant: grant))
    }

    /// The requested `fields` of the grant's identity (`email` only with the `email` permission), always with `id`.
    static func facebookUser(fields: [String], grant: GrantRecord) -> [String: JSONValue] {
        let identity = grant.identity
        var body: [String: JSONValue] = [:]
        for field in fields {
            switch field {
            case "id": body["id"] = .string(identity.subject)
            case "name": if let name = identity.name { body["name"] = .string(name) }
            case "first_name": if let given = identity.givenName { body["first_name"] = .string(given) }
            case "last_name": if let family = identity.familyName { body["last_name"] = .string(family) }
            case "email":
                if grant.scopes.contains("email"), let email = identity.email { body["email"] = .string(email) }
            default: break
            }
        }
        // Graph always answers with the node id.
        body["id"] = .string(identity.subject)
        return body
    }

    /// `GET /facebook/.well-known/openid-configuration` for the OIDC code flow with PKCE.
    func facebookDiscovery() -> JSONValue {
        let endpoints = endpoints(for: .facebook)
        return .object([
            "issuer": .string(endpoints.issuer ?? ""),
            "authorization_endpoint": .string(endpoints.authorization),
            "token_endpoint": .string(endpoints.token),
            "jwks_uri": .string(endpoints.jwks ?? ""),
            "response_types_supported": .array([.string("code")]),
            "subject_types_supported": .array([.string("pairwise")]),
            "id_token_signing_alg_values_supported": .array([.string("RS256")]),
            "scopes_supported": .array(["openid", "email", "public_profile"].map(JSONValue.string)),
            "code_challenge_methods_supported": .array(["plain", "S256"].map(JSONValue.string)),
            "claims_supported": .array(
                ["iss", "aud", "sub", "iat", "exp", "jti", "nonce", "name", "given_name", "family_name", "email"]
                    .map(JSONValue.string)),
        ])
    }
}

extension OAuthFailure {
    func withGraphCode(_ code: Int) -> OAuthFailure {
        var copy = self
        copy.graphCode = code
        return copy
    }
}
