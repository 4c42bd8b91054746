import AuthFlowHTTP
import AuthFlowJOSE
import Foundation
import Synchronization

/// DPoP (RFC 9449) in the OpenID issuer's FAPI 2.0 mode: every token, userinfo and revocation request carries a
/// proof, checked strictly (§4.3), with server nonces (§8, §9); tokens are bound to the proof's key. In the DPoP
/// mode (``SandboxConfiguration/dpop``) the same checks apply to the token and userinfo requests that carry one.
extension SandboxIdentityProvider {
    /// How far a proof's `iat` may be from the sandbox's clock, in seconds.
    static let dpopProofWindow: Int64 = 60

    /// Why a proof was refused: a missing or stale nonce (answered `use_dpop_nonce` with a fresh `DPoP-Nonce`), or
    /// anything else (`invalid_dpop_proof`).
    enum DPoPRefusal: Error {
        case nonce
        case invalid(String)
    }

    /// The proof of `request` checked for `htu` (the endpoint's URL): one `DPoP` header, `typ: dpop+jwt`, an
    /// asymmetric `alg` (ES256, EdDSA, PS256) verified with the public `jwk` of its header, `jti`, `htm` the
    /// request's method, `htu` the endpoint, `iat` within ``dpopProofWindow`` of the clock, `ath` the hash of
    /// `accessToken` when one is presented, `nonce` the current server nonce, and a `jti` never seen before.
    ///
    /// - Returns: the RFC 7638 thumbprint of the proof's key (`jkt`).
    func checkDPoPProof(_ request: HTTPServerRequest, htu: String, accessToken: String?) -> Result<String, DPoPRefusal>
    {
        let proofs = request.headers.values("DPoP")
        guard proofs.count == 1, let proof = proofs.first else {
            return .failure(.invalid(proofs.isEmpty ? "a DPoP proof is required" : "exactly one DPoP header allowed"))
        }
        let key: JWK
        let claims: JWTClaims
        do {
            let headerPart = proof.split(separator: ".", omittingEmptySubsequences: false).first ?? ""
            let header = try JSONValue.parse(try Base64URL.decode(headerPart))
            guard header["typ"]?.stringValue == "dpop+jwt" else { return .failure(.invalid("typ must be dpop+jwt")) }
            guard let jwk = header["jwk"] else { return .failure(.invalid("the header must carry the public jwk")) }
            key = try JWK(json: jwk)
            guard !key.isPrivate else { return .failure(.invalid("the jwk must be a public key")) }
            var verifier = JWSVerifier(allowedAlgorithms: [.es256, .edDSA, .ps256])
            verifier.allowsEmbeddedJWK = true
            let verified = try verifier.verify(proof, keys: JWKSet(keys: [key]))
            claims = try JWTClaims(payload: verified.payload)
        } catch {
            return .failure(.invalid("the proof does not verify with its jwk"))
        }
        if let problem = dpopClaimProblem(claims, request: request, htu: htu, accessToken: accessToken) {
            return .failure(.invalid(problem))
        }
        let now = self.now
        let jti = claims.string("jti") ?? ""
        let outcome = state.withLock { state -> DPoPRefusal? in
            guard !configuration.dpopNonceAlwaysStale, let current = state.dpopNonce, claims.nonce == current
            else { return .nonce }
            return state.spendDPoPProof(jti, until: now.addingTimeInterval(Double(2 * Self.dpopProofWindow)), now: now)
                ? nil : .invalid("the proof's jti was already used")
        }
        if let outcome { return .failure(outcome) }
        return .success(key.thumbprint())
    }

    /// What is wrong with a proof's claims, or `nil`.
    private func dpopClaimProblem(
        _ claims: JWTClaims, request: HTTPServerRequest, htu: String, accessToken: String?
    ) -> String? {
        guard let jti = claims.string("jti"), !jti.isEmpty, jti.utf8.count <= 256 else { return "jti is required" }
        guard claims.string("htm") == request.method else { return "htm must be the request's method" }
        guard claims.string("htu") == htu else { return "htu must be the endpoint's URL" }
        guard let iat = claims.issuedAt, abs(iat - Int64(now.timeIntervalSince1970)) <= Self.dpopProofWindow else {
            return "iat must be within \(Self.dpopProofWindow) seconds of now"
        }
        if let accessToken {
            guard claims.string("ath") == Base64URL.encode(Digest.sha256(Array(accessToken.utf8))) else {
                return "ath must be the hash of the presented access token"
            }
        }
        return nil
    }

    /// The current nonce, made on first use.
    func currentDPoPNonce() -> String {
        let fresh = randomToken()
        return state.withLock { state in
            if let nonce = state.dpopNonce, !configuration.dpopNonceAlwaysStale { return nonce }
            state.dpopNonce = fresh
            return fresh
        }
    }

    /// The token endpoint's refusal of a proof (RFC 9449 §8): 400 `use_dpop_nonce` with a fresh `DPoP-Nonce`,
    /// or 400 `invalid_dpop_proof`.
    func tokenEndpointRefusal(_ refusal: DPoPRefusal) -> OAuthFailure {
        switch refusal {
        case .nonce:
            var failure = OAuthFailure("use_dpop_nonce", "the authorization server requires a DPoP nonce")
            failure.dpopNonce = currentDPoPNonce()
            return failure
        case .invalid(let problem):
            return OAuthFailure("invalid_dpop_proof", problem)
        }
    }

    /// The resource's refusal of a proof (RFC 9449 §7.1, §9): 401 with `WWW-Authenticate: DPoP` naming the error,
    /// and a fresh `DPoP-Nonce` for `use_dpop_nonce`.
    func resourceRefusal(_ error: String, _ description: String) -> HTTPServerResponse {
        var response = OAuthFailure(error, description, status: 401).oauthResponse()
        response.headers["WWW-Authenticate"] = "DPoP algs=\"ES256 EdDSA PS256\", error=\"\(error)\""
        if error == "use_dpop_nonce" { response.headers["DPoP-Nonce"] = currentDPoPNonce() }
        return response
    }

    /// The FAPI mode's token request checks before client authentication (so a nonce challenge spends no
    /// client assertion): the proof, then for a code its `dpop_jkt` (required at the pushed request) and for a
    /// refresh token the grant's key.
    ///
    /// - Returns: the proof key's thumbprint.
    func checkFAPITokenProof(_ request: HTTPServerRequest) throws(OAuthFailure) -> String {
        let endpoint = endpoints(for: .google).token
        switch checkDPoPProof(request, htu: endpoint, accessToken: nil) {
        case .failure(let refusal): throw tokenEndpointRefusal(refusal)
        case .success(let jkt): return jkt
        }
    }

    /// The token request's proof key: required in the FAPI mode, checked when one is sent in the DPoP mode
    /// (``SandboxConfiguration/dpop``), `nil` otherwise (the request is not looked at).
    func tokenRequestProof(_ request: HTTPServerRequest) throws(OAuthFailure) -> String? {
        let proves = configuration.fapi2 || (configuration.dpop && !request.headers.values("DPoP").isEmpty)
        return proves ? try checkFAPITokenProof(request) : nil
    }

    /// The code exchange against the code's binding (RFC 9449 §10): in the FAPI mode every code is bound (at the
    /// pushed request) and the proof's key must be its; otherwise a code bound by `dpop_jkt` needs a proof with
    /// that key, and an unbound one takes a proof or none.
    func checkCodeBinding(_ bound: String?, _ jkt: String?) throws(OAuthFailure) {
        guard let jkt else {
            if bound != nil {
                throw OAuthFailure("invalid_dpop_proof", "the code is bound to a DPoP key: send a proof")
            }
            return
        }
        if configuration.fapi2 || bound != nil { try requireBinding(bound, jkt, what: "the code") }
    }

    /// The DPoP mode's `dpop_jkt` authorization parameter (RFC 9449 §10), a JWK SHA-256 thumbprint, into `request`.
    static func readDPoPJKT(_ parameters: Parameters, into request: inout AuthorizationRequest) -> AuthorizationRefusal?
    {
        guard let jkt = parameters["dpop_jkt"] else { return nil }
        guard jkt.utf8.count == 43 else {
            return AuthorizationRefusal("invalid_request", "dpop_jkt must be a JWK SHA-256 thumbprint (43 characters)")
        }
        request.dpopJKT = jkt
        return nil
    }

    /// The FAPI mode's revocation proof (checked before client authentication), whose key must be the one the
    /// token's grant is bound to; `nil` when the token is unknown (answered as Google answers it).
    func checkFAPIRevocationProof(_ request: HTTPServerRequest, token: String?) throws(OAuthFailure) {
        let endpoint = endpoints(for: .google).revocation ?? ""
        let jkt: String
        switch checkDPoPProof(request, htu: endpoint, accessToken: nil) {
        case .failure(let refusal): throw tokenEndpointRefusal(refusal)
        case .success(let value): jkt = value
        }
        guard let token else { return }
        let bound = state.withLock { state -> String?? in
            guard let grantID = state.accessTokens[token]?.grantID ?? state.refreshTokens[token]?.grantID else {
                return .none
            }
            return .some(state.dpopBindings[grantID])
        }
        if case .some(let binding) = bound { try requireBinding(binding, jkt, what: "the token") }
    }

    /// The thumbprint a code or refresh token is bound to must be the proof's.
    func requireBinding(_ bound: String?, _ jkt: String, what: String) throws(OAuthFailure) {
        guard let bound, bound == jkt else {
            throw OAuthFailure("invalid_dpop_proof", "the proof's key is not the one \(what) is bound to")
        }
    }
}

extension SandboxState {
    /// Marks a DPoP proof's `jti` used until `until`; `false` for a replay (or when too many are remembered).
    mutating func spendDPoPProof(_ jti: String, until: Date, now: Date) -> Bool {
        if let expiry = spentDPoPProofs[jti], expiry > now { return false }
        if spentDPoPProofs.count >= maximumPendingEntries {
            spentDPoPProofs = spentDPoPProofs.filter { $0.value > now }
        }
        guard spentDPoPProofs.count < maximumPendingEntries else { return false }
        spentDPoPProofs[jti] = until
        return true
    }
}

extension SandboxIdentityProvider {
    /// The FAPI mode's userinfo request: `Authorization: DPoP <token>` (a Bearer token is refused) with a proof
    /// whose `ath` is the token's hash; the refusal is the resource's 401.
    struct ResourceRefusal: Error {
        let response: HTTPServerResponse
    }

    func fapiUserinfoProof(_ request: HTTPServerRequest) -> Result<(token: String, jkt: String), ResourceRefusal> {
        guard let header = request.headers["Authorization"], header.hasPrefix("DPoP "),
            case let token = String(header.dropFirst(5)).trimmingCharacters(in: .whitespaces), !token.isEmpty
        else {
            return .failure(
                ResourceRefusal(
                    response: resourceRefusal("invalid_token", "this resource requires Authorization: DPoP")))
        }
        switch checkDPoPProof(request, htu: endpoints(for: .google).userinfo ?? "", accessToken: token) {
        case .failure(.nonce):
            return .failure(
                ResourceRefusal(
                    response: resourceRefusal("use_dpop_nonce", "the resource server requires a DPoP nonce")))
        case .failure(.invalid(let problem)):
            return .failure(ResourceRefusal(response: resourceRefusal("invalid_dpop_proof", problem)))
        case .success(let jkt):
            return .success((token, jkt))
        }
    }
}
