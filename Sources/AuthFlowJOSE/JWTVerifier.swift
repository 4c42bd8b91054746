public import Foundation

/// Verifies a JWT: the signature steps (size cap, strict base64url, header, key, signature), then the payload is decoded and the
/// ``ClaimChecks`` run. Nothing from the payload is read before the signature has verified.
public struct JWTVerifier: Sendable {
    /// The signature layer.
    package let jws: JWSVerifier
    /// The claim checks.
    package let checks: ClaimChecks

    /// Creates a verifier for the given algorithms, checks and size cap.
    public init(allowedAlgorithms: Set<JWSAlgorithm>, checks: ClaimChecks, maxTokenBytes: Int = 16 * 1024) {
        self.jws = JWSVerifier(allowedAlgorithms: allowedAlgorithms, maxTokenBytes: maxTokenBytes)
        self.checks = checks
    }

    /// Verifies `token` against `keys` at time `now` and returns its claims.
    /// - Throws: `JOSEError` from the signature steps, `.invalidJSON` for a payload
    ///   that is not a JSON object, and the errors of the claim checks (``ClaimChecks``).
    public func verify(_ token: String, keys: JWKSet, now: Date) throws(JOSEError) -> JWTClaims {
        let (header, payload, _) = try jws.verify(token, keys: keys)
        let claims: JWTClaims
        do {
            claims = try JWTClaims(payload: payload)
        } catch {
            throw error.withKeyID(header.keyID)
        }
        try checks.validate(claims, now: now)
        return claims
    }
}
