import AuthFlowJOSE
import Foundation

/// The signed request object of RFC 9101 (JWT-Secured Authorization Request): every authorization parameter
/// as a string claim, plus `iss` (the client id), `aud` (the authorization server's issuer, RFC 9101 §4),
/// `iat`, `nbf`, `exp` and a random `jti`, signed with the client's `private_key_jwt` key (ES256 for EC P-256,
/// RS256 for RSA) under `typ: oauth-authz-req+jwt` (RFC 9101 §10.8) and the key's `kid`.
enum RequestObject {
    /// The JWT `typ` of a request object (RFC 9101 §10.8).
    static let type = "oauth-authz-req+jwt"
    /// How long a request object is valid: the one redirect or push it is made for.
    static let lifetime: Int64 = 60

    /// Signs `parameters` into a request object.
    ///
    /// - Throws: `JOSEError` `.keyMismatch` for a key that is neither EC P-256 nor RSA, `.cryptoFailure` when
    ///   signing fails.
    static func make(
        parameters: [(String, String)], clientID: String, audience: String, privateKey: JWK, issuedAt: Date,
        rsaAlgorithm: JWSAlgorithm = .rs256, random: any SecureRandom
    ) throws(JOSEError) -> String {
        let algorithm = try ClientAssertion.algorithm(for: privateKey, rsa: rsaAlgorithm)
        let iat = Int64(issuedAt.timeIntervalSince1970.rounded(.down))
        var claims: [String: JSONValue] = [:]
        for (name, value) in parameters { claims[name] = .string(value) }
        claims["iss"] = .string(clientID)
        claims["aud"] = .string(audience)
        claims["iat"] = .integer(iat)
        claims["nbf"] = .integer(iat)
        claims["exp"] = .integer(iat + lifetime)
        claims["jti"] = .string(Base64URL.encode(random.bytes(16)))
        return try JWS.sign(
            payload: JSONValue.object(claims).serializedBytes(), key: privateKey, algorithm: algorithm,
            extraHeader: ["typ": .string(type)])
    }
}
