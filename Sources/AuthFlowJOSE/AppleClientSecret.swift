package import Foundation

/// The `client_secret` Sign in with Apple requires: an ES256 JWT signed with the team's `.p8`
/// key (`iss` team id, `sub` client id, `aud` `https://appleid.apple.com`, header `kid`).
package enum AppleClientSecret {
    /// Apple's upper bound on `exp - iat`: 6 months (15,777,000 seconds).
    package static let maximumLifetime: Int64 = 15_777_000
    /// Apple's audience.
    package static let audience = "https://appleid.apple.com"

    /// Mints a client secret valid from `issuedAt` for `lifetime` seconds.
    /// - Throws: `JOSEError` `.invalidClaim` for an empty id or a lifetime outside
    ///   1…``maximumLifetime``; `.keyMismatch` unless `privateKey` is a private EC P-256 key;
    ///   `.cryptoFailure` if signing fails.
    package static func make(
        teamID: String, keyID: String, clientID: String, privateKey: JWK, issuedAt: Date,
        lifetime: Int64
    ) throws(JOSEError) -> String {
        for (name, value) in [("iss", teamID), ("sub", clientID), ("kid", keyID)] where value.isEmpty {
            throw JOSEError(.invalidClaim, "expected a non-empty \(name), found an empty one", claim: name)
        }
        guard (1...maximumLifetime).contains(lifetime) else {
            throw JOSEError(
                .invalidClaim, "expected a lifetime of 1 to \(maximumLifetime) seconds, found \(lifetime)", claim: "exp"
            )
        }
        guard privateKey.isPrivate, case .ec(.p256, _, _, _) = privateKey.material else {
            throw JOSEError(
                .keyMismatch,
                "expected a private EC P-256 key (Apple .p8), found \(privateKey.keyType)\(privateKey.isPrivate ? "" : " public key")",
                keyID: keyID)
        }
        let iat = Int64(issuedAt.timeIntervalSince1970.rounded(.down))
        let claims: [String: JSONValue] = [
            "iss": .string(teamID), "sub": .string(clientID), "aud": .string(audience),
            "iat": .integer(iat), "exp": .integer(iat + lifetime),
        ]
        return try JWS.sign(
            payload: JSONValue.object(claims).serializedBytes(), key: privateKey, algorithm: .es256,
            headerKeyID: keyID, extraHeader: [:])
    }
}
