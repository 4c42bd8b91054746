import AuthFlowJOSE
import Foundation

/// Checks a `private_key_jwt` client assertion (RFC 7523 §3, OpenID Connect Core §9): signed ES256, RS256 or
/// PS256 by a key registered for the client, `iss` = `sub` = the client id, `aud` naming the token endpoint,
/// an `exp` in the future and at most 10 minutes ahead, `nbf`/`iat` not in the future, and a `jti` (whose single
/// use the caller enforces).
struct ClientAssertionValidator: Sendable {
    static let assertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    static let algorithms: Set<JWSAlgorithm> = [.es256, .rs256, .ps256]
    /// The longest `exp - now` accepted, in seconds (Entra: "5-10 minutes after nbf at most").
    static let maximumLifetime: Int64 = 600
    /// Tolerated clock difference, in seconds.
    static let leeway: Int64 = 60

    let clientID: String
    let keys: [JWK]
    let audience: String
    /// Other values `aud` may name instead (RFC 9126 §2: the issuer or the pushed authorization request
    /// endpoint); none for Entra.
    var otherAudiences: Set<String> = []

    /// The assertion's `jti` and expiry when it is acceptable, else the `invalid_client` refusal.
    func check(_ assertion: String, now: Date) -> Result<(jti: String, expiresAt: Date), OAuthFailure> {
        func refuse(_ text: String) -> Result<(jti: String, expiresAt: Date), OAuthFailure> {
            .failure(.invalidClient("AADSTS700027: client assertion refused: " + text))
        }
        let header: JWSHeader
        do {
            header = try JWSVerifier.header(of: assertion)
        } catch {
            return refuse("not a compact JWS: \(error.message)")
        }
        guard let algorithm = JWSAlgorithm(rawValue: header.algorithm), Self.algorithms.contains(algorithm) else {
            return refuse("expected alg ES256, RS256 or PS256, found '\(clip(header.algorithm))'")
        }
        let payload: [UInt8]
        do {
            payload = try JWSVerifier(allowedAlgorithms: Self.algorithms).verify(assertion, keys: JWKSet(keys: keys))
                .payload
        } catch {
            return refuse("the signature does not verify with a registered key: \(error.message)")
        }
        let claims: JWTClaims
        do {
            claims = try JWTClaims(payload: payload)
        } catch {
            return refuse("the claims are not a JSON object: \(error.message)")
        }
        guard claims.issuer == clientID else {
            return refuse("iss must be the client_id '\(clip(clientID))', found \(quoted(claims.issuer))")
        }
        guard claims.subject == clientID else {
            return refuse("sub must be the client_id '\(clip(clientID))', found \(quoted(claims.subject))")
        }
        guard claims.audience.contains(audience) || !otherAudiences.isDisjoint(with: claims.audience) else {
            return refuse(
                "aud must name the token endpoint '\(audience)', found "
                    + (claims.audience.isEmpty
                        ? "none" : claims.audience.map { "'\(clip($0))'" }.joined(separator: ", ")))
        }
        let current = Int64(now.timeIntervalSince1970)
        guard let expiresAt = claims.expiresAt else { return refuse("no numeric exp claim") }
        guard expiresAt > current else { return refuse("expired at \(expiresAt) (now \(current))") }
        guard expiresAt <= current + Self.maximumLifetime + Self.leeway else {
            return refuse("exp \(expiresAt) is more than \(Self.maximumLifetime) s ahead (now \(current))")
        }
        if let notBefore = claims.notBefore, notBefore > current + Self.leeway {
            return refuse("nbf \(notBefore) is in the future (now \(current))")
        }
        if let issuedAt = claims.issuedAt, issuedAt > current + Self.leeway {
            return refuse("iat \(issuedAt) is in the future (now \(current))")
        }
        guard let jti = claims.string("jti"), !jti.isEmpty, jti.utf8.count <= 256 else {
            return refuse("expected a jti of 1 to 256 bytes")
        }
        return .success((jti, Date(timeIntervalSince1970: TimeInterval(expiresAt + Self.leeway))))
    }

    private func quoted(_ value: String?) -> String { value.map { "'\(clip($0))'" } ?? "none" }
}
