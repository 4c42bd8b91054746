import AuthFlowHTTP
import AuthFlowJOSE
import Foundation
import Synchronization

/// The OpenID issuer's strict FAPI 2.0 mode (``SandboxConfiguration/fapi2``), as far as pushed authorization
/// requests (RFC 9126), the `iss` response parameter (RFC 9207), `private_key_jwt` and PKCE go: `POST
/// /google/par`, the authorization endpoint taking only a `request_uri`, and the clients' assertions.
extension SandboxIdentityProvider {
    /// The discovery members the FAPI 2.0 mode adds or replaces.
    func fapiDiscoveryMembers() -> [String: JSONValue] {
        let root = baseURL + SandboxProvider.google.pathPrefix
        return [
            "pushed_authorization_request_endpoint": .string(root + "/par"),
            "require_pushed_authorization_requests": true,
            "authorization_response_iss_parameter_supported": true,
            "token_endpoint_auth_methods_supported": ["private_key_jwt"],
            "token_endpoint_auth_signing_alg_values_supported": ["ES256", "PS256"],
            "code_challenge_methods_supported": ["S256"],
            "require_signed_request_object": true,
            "request_object_signing_alg_values_supported": ["ES256", "PS256"],
            "dpop_signing_alg_values_supported": ["ES256", "EdDSA", "PS256"],
            "id_token_signing_alg_values_supported": ["PS256"],
        ]
    }

    /// `POST /google/par`: authenticates the client with `private_key_jwt`, checks the request as the
    /// authorization endpoint would (and PKCE `S256`, required), and answers `201` with a single-use
    /// `request_uri` living ``SandboxConfiguration/pushedRequestLifetime`` seconds on the sandbox's clock.
    func handlePushedAuthorization(_ request: HTTPServerRequest) -> HTTPServerResponse {
        state.withLock { $0.count(.google, \.authorization) }
        return answeringOAuthFailures { () throws(OAuthFailure) -> HTTPServerResponse in
            let (form, client) = try authenticatedForm(
                request, authenticate: { authenticateFAPIClient($0, request: $1) })
            guard !form.contains("request_uri") else {
                throw .invalidRequest("a pushed authorization request must not carry request_uri (RFC 9126 §2.1)")
            }
            guard form["client_id"] == client.clientID else {
                throw .invalidRequest("client_id must name the authenticated client")
            }
            let parameters = try requestObjectParameters(form, client: client)
            var authorization: AuthorizationRequest
            switch validateGoogleAuthorization(parameters) {
            case .failure(let refusal): throw OAuthFailure(refusal.error, refusal.description, status: 400)
            case .success(let value): authorization = value
            }
            guard authorization.challenge?.method == .s256 else {
                throw .invalidRequest("FAPI 2.0 requires PKCE with code_challenge_method S256")
            }
            // RFC 9449 §10: the code will be bound to this key; this mode requires the binding.
            guard let jkt = parameters["dpop_jkt"], jkt.utf8.count == 43 else {
                throw .invalidRequest("this issuer binds codes to a DPoP key: dpop_jkt (a JWK thumbprint) is required")
            }
            authorization.dpopJKT = jkt
            let requestURI = "urn:ietf:params:oauth:request_uri:" + randomToken()
            let now = self.now
            let lifetime = SandboxConfiguration.pushedRequestLifetime
            let pushed = PushedRequest(
                request: authorization, expiresAt: now.addingTimeInterval(TimeInterval(lifetime)))
            guard state.withLock({ $0.addPushedRequest(requestURI, pushed, now: now) }) else {
                throw OAuthFailure("temporarily_unavailable", "too many pending requests", status: 503)
            }
            var response = HTTPServerResponse.json(
                JSONValue.object(["request_uri": .string(requestURI), "expires_in": .integer(lifetime)])
                    .serialized(), status: 201)
            response.headers["Cache-Control"] = "no-store"
            // RFC 9449 §8.2: the nonce the token request's proof will need.
            response.headers["DPoP-Nonce"] = currentDPoPNonce()
            return response
        }
    }

    /// The authorization parameters of a pushed request's signed request object (RFC 9101; required in this
    /// mode): `typ: oauth-authz-req+jwt`, ES256 or PS256 by one of the client's keys, `iss` (and `client_id` if
    /// present) the client, `aud` the issuer, `exp` in the future at most an hour after `nbf`, `nbf` not in the
    /// future. Only the object's parameters count, with the authenticated `client_id`.
    ///
    /// - Throws: ``OAuthFailure`` `invalid_request_object`.
    func requestObjectParameters(_ form: Parameters, client: SandboxClient) throws(OAuthFailure) -> Parameters {
        func refuse(_ text: String) -> OAuthFailure { OAuthFailure("invalid_request_object", text, status: 400) }
        guard let object = form["request"] else {
            throw refuse("this issuer requires a signed request object (request)")
        }
        let verified: (header: JWSHeader, payload: [UInt8], key: JWK)
        let claims: JWTClaims
        do {
            verified = try JWSVerifier(allowedAlgorithms: [.es256, .ps256]).verify(
                object, keys: JWKSet(keys: client.assertionKeys))
            claims = try JWTClaims(payload: verified.payload)
        } catch {
            throw refuse("the request object does not verify with a registered key: \(error.message)")
        }
        guard verified.header.type == "oauth-authz-req+jwt" else { throw refuse("typ must be oauth-authz-req+jwt") }
        let now = Int64(self.now.timeIntervalSince1970)
        guard claims.issuer == client.clientID, claims.string("client_id").map({ $0 == client.clientID }) ?? true
        else { throw refuse("iss must be the client's id") }
        guard let issuer = issuer(for: .google), claims.audience.contains(issuer) else {
            throw refuse("aud must name the issuer")
        }
        guard let exp = claims.expiresAt, exp > now, let nbf = claims.notBefore, nbf <= now + 60, exp - nbf <= 3600
        else { throw refuse("exp must be in the future, nbf not, and exp at most 60 minutes after nbf") }
        let registered: Set<String> = ["iss", "aud", "exp", "nbf", "iat", "jti", "client_id"]
        var pairs = [("client_id", client.clientID)]
        for (name, value) in claims.json.sorted(by: { $0.key < $1.key }) where !registered.contains(name) {
            guard let text = value.stringValue else { throw refuse("the parameter '\(clip(name))' must be a string") }
            pairs.append((name, text))
        }
        return Parameters(pairs)
    }

    /// The authorization endpoint in the FAPI 2.0 mode: only a pushed request, named by `request_uri` with the
    /// same `client_id`, unexpired and used once (a second use, or a use after expiry, is refused and the
    /// request is gone either way).
    func redeemPushedRequest(_ parameters: Parameters) -> Result<AuthorizationRequest, AuthorizationRefusal> {
        guard let requestURI = parameters["request_uri"] else {
            return .failure(
                AuthorizationRefusal(
                    "invalid_request", "this issuer accepts only pushed authorization requests (request_uri)"))
        }
        let now = self.now
        guard let pushed = state.withLock({ $0.takePushedRequest(requestURI) }) else {
            return .failure(AuthorizationRefusal("invalid_request_uri", "the request_uri is unknown or already used"))
        }
        guard pushed.expiresAt > now else {
            return .failure(AuthorizationRefusal("invalid_request_uri", "the request_uri has expired"))
        }
        guard parameters["client_id"] == pushed.request.clientID else {
            return .failure(AuthorizationRefusal("invalid_request", "client_id differs from the pushed request's"))
        }
        return .success(pushed.request)
    }

    /// `private_key_jwt` only (RFC 7523 with a single-use `jti`); the assertion's `aud` may name the issuer,
    /// the token endpoint or the pushed authorization request endpoint (RFC 9126 §2), and `endpoint`, the URL
    /// the request was sent to (the revocation endpoint: RFC 7523 §3 lets any value identifying the server do).
    func authenticateFAPIClient(_ form: Parameters, request: HTTPServerRequest, endpoint: String? = nil)
        -> Result<SandboxClient, OAuthFailure>
    {
        if request.headers["Authorization"] != nil || form.contains("client_secret") {
            return .failure(.invalidClient("FAPI 2.0 allows only private_key_jwt client authentication"))
        }
        guard form["client_assertion_type"] == ClientAssertionValidator.assertionType,
            let assertion = form["client_assertion"]
        else {
            return .failure(.invalidClient("expected a private_key_jwt client assertion, found none"))
        }
        guard let clientID = form["client_id"], let client = state.withLock({ $0.client(.google, clientID) }),
            !client.assertionKeys.isEmpty
        else {
            return .failure(.invalidClient("the client is unknown or registered no assertion key"))
        }
        let endpoints = endpoints(for: .google)
        var validator = ClientAssertionValidator(
            clientID: client.clientID, keys: client.assertionKeys, audience: endpoints.token)
        validator.otherAudiences = [baseURL + SandboxProvider.google.pathPrefix + "/par"]
        if let issuer = endpoints.issuer { validator.otherAudiences.insert(issuer) }
        if let endpoint { validator.otherAudiences.insert(endpoint) }
        let now = self.now
        switch validator.check(assertion, now: now) {
        case .failure(let failure): return .failure(failure)
        case .success(let checked):
            let fresh = state.withLock {
                $0.spendAssertion(clientID: client.clientID, jti: checked.jti, expiresAt: checked.expiresAt, now: now)
            }
            return fresh ? .success(client) : .failure(.invalidClient("the client assertion's jti was already used"))
        }
    }
}
