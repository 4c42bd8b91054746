import AuthFlowJOSE
import Foundation

/// Checks an Apple `client_secret` the way Apple's token endpoint does: an ES256 JWT signed by the
/// registered key (header `kid` = key id), `iss` = team id, `sub` = client id,
/// `aud` = `https://appleid.apple.com`, `iat` not in the future, `exp` in the future, and a lifetime of
/// at most 15,777,000 seconds.
struct AppleClientSecretValidator: Sendable {
    static let audience = "https://appleid.apple.com"
    static let maximumLifetime: Int64 = 15_777_000
    /// Tolerated clock difference for `iat`, in seconds.
    static let leeway: Int64 = 60

    let client: SandboxClient
    let credentials: SandboxClient.AppleCredentials

    /// `nil` when the secret is acceptable, else the `invalid_client` refusal.
    func problem(with secret: String, now: Date) -> OAuthFailure? {
        func refuse(_ text: String) -> OAuthFailure { .invalidClient(text, status: 400) }
        let header: JWSHeader
        do {
            header = try JWSVerifier.header(of: secret)
        } catch {
            return refuse("client_secret is not a compact JWS: \(error.message)")
        }
        guard header.algorithm == JWSAlgorithm.es256.rawValue else {
            return refuse("client_secret must be signed with ES256, found alg '\(clip(header.algorithm))'")
        }
        guard header.keyID == credentials.keyID else {
            return refuse(
                "client_secret kid must be the registered key id '\(credentials.keyID)', found "
                    + (header.keyID.map { "'\(clip($0))'" } ?? "none"))
        }
        let payload: [UInt8]
        do {
            payload = try JWSVerifier(allowedAlgorithms: [.es256]).verify(
                secret, keys: JWKSet(keys: [credentials.publicKey])
            ).payload
        } catch {
            return refuse("client_secret signature does not verify with the registered key: \(error.message)")
        }
        let claims: JWTClaims
        do {
            claims = try JWTClaims(payload: payload)
        } catch {
            return refuse("client_secret claims are not a JSON object: \(error.message)")
        }
        guard claims.issuer == credentials.teamID else {
            return refuse(
                "client_secret iss must be the team id '\(credentials.teamID)', found " + quoted(claims.issuer))
        }
        guard claims.subject == client.clientID else {
            return refuse(
                "client_secret sub must be the client_id '\(client.clientID)', found " + quoted(claims.subject))
        }
        guard claims.audience == [Self.audience] else {
            return refuse(
                "client_secret aud must be '\(Self.audience)', found "
                    + (claims.audience.isEmpty
                        ? "none" : claims.audience.map { "'\(clip($0))'" }.joined(separator: ", ")))
        }
        guard let issuedAt = claims.issuedAt else { return refuse("client_secret has no numeric iat claim") }
        guard let expiresAt = claims.expiresAt else { return refuse("client_secret has no numeric exp claim") }
        let current = Int64(now.timeIntervalSince1970)
        guard issuedAt <= current + Self.leeway else {
            return refuse("client_secret iat \(issuedAt) is in the future (now \(current))")
        }
        guard expiresAt > current else {
            return refuse("client_secret expired at \(expiresAt) (now \(current))")
        }
        guard expiresAt > issuedAt else { return refuse("client_secret exp \(expiresAt) is not after iat \(issuedAt)") }
        guard expiresAt - issuedAt <= Self.maximumLifetime else {
            return refuse(
                "client_secret lifetime must be at most \(Self.maximumLifetime) s, found \(expiresAt - issuedAt) s")
        }
        return nil
    }

    private func quoted(_ value: String?) -> String { value.map { "'\(clip($0))'" } ?? "none" }
}
