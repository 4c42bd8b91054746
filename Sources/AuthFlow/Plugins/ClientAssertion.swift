import AuthFlowJOSE
import Foundation

/// The signed JWT a client sends as `client_assertion` with `private_key_jwt` (RFC 7523 §2.2 and §3).
///
/// `iss` and `sub` are the client id, `aud` the token endpoint, `jti` 16 random bytes, `exp` `lifetime`
/// seconds after `iat`. An EC P-256 key signs ES256, an RSA key RS256; the header carries `kid` when a key
/// id is configured and `typ: JWT`.
enum ClientAssertion {
    /// The `client_assertion_type` value (RFC 7523 §2.2).
    static let assertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    /// The lifetime of an assertion unless the caller asks for another: one token request needs seconds.
    static let defaultLifetime: Int64 = 60

    /// The algorithm `key` signs assertions with: ES256 for an EC P-256 key, `rsa` (RS256 unless a profile
    /// asks for PS256) for RSA.
    ///
    /// - Throws: `JOSEError` `.keyMismatch` for any other key (or a public one).
    static func algorithm(for key: JWK, rsa: JWSAlgorithm = .rs256) throws(JOSEError) -> JWSAlgorithm {
        guard key.isPrivate else {
            throw JOSEError(.keyMismatch, "expected a private key, found a public \(key.keyType) key", keyID: key.keyID)
        }
        switch (key.keyType, key.defaultAlgorithm) {
        case ("EC", .es256): return .es256
        case ("RSA", _): return rsa
        default:
            throw JOSEError(
                .keyMismatch, "expected an EC P-256 or RSA private key, found another \(key.keyType) key",
                keyID: key.keyID)
        }
    }

    /// Mints one assertion.
    ///
    /// - Throws: `JOSEError` `.invalidClaim` for an empty client id or audience or a lifetime below one second,
    ///   `.keyMismatch` for a key that is neither EC P-256 nor RSA, `.cryptoFailure` when signing fails.
    static func make(
        clientID: String, audience: String, privateKey: JWK, issuedAt: Date, lifetime: Int64 = defaultLifetime,
        rsaAlgorithm: JWSAlgorithm = .rs256, random: any SecureRandom
    ) throws(JOSEError) -> String {
        for (name, value) in [("sub", clientID), ("aud", audience)] where value.isEmpty {
            throw JOSEError(.invalidClaim, "expected a non-empty \(name), found an empty one", claim: name)
        }
        guard lifetime >= 1 else {
            throw JOSEError(.invalidClaim, "expected a lifetime of at least 1 second, found \(lifetime)", claim: "exp")
        }
        let algorithm = try algorithm(for: privateKey, rsa: rsaAlgorithm)
        let iat = Int64(issuedAt.timeIntervalSince1970.rounded(.down))
        let claims: [String: JSONValue] = [
            "iss": .string(clientID), "sub": .string(clientID), "aud": .string(audience),
            "jti": .string(Base64URL.encode(random.bytes(16))), "iat": .integer(iat), "exp": .integer(iat + lifetime),
        ]
        return try JWS.sign(
            payload: JSONValue.object(claims).serializedBytes(), key: privateKey, algorithm: algorithm,
            extraHeader: ["typ": .string("JWT")])
    }
}
