import Testing

@testable import AuthFlowJOSE

@Suite("Generated keys: kept as OpenSSL generated them, and consistent under every check a key from outside gets")
struct GeneratedKeyTests {
    @Test func aGeneratedP256KeyPassesTheChecksOfItsMembersAndMatchesItsOpenSSLKey() throws {
        for _ in 0..<20 {
            let key = try JWK.generateP256(keyID: "g")
            // Rebuilt from its members, with the point-on-curve and pairwise checks: the same key.
            let rebuilt = try JWK(json: key.exportPrivate())
            #expect(rebuilt == key)
            // The members are the generated key's own, as OpenSSL reads them one by one.
            let openSSL = try #require(key.pkey?.ecComponents(curve: .p256))
            guard case .ec(.p256, let x, let y, let d) = key.material else {
                Issue.record("expected a P-256 key, found \(key)")
                return
            }
            #expect(openSSL.x == x && openSSL.y == y && openSSL.d == d)
            let token = try JWS.sign(payload: Array("payload".utf8), key: key)
            let verified = try JWSVerifier(allowedAlgorithms: [.es256]).verify(
                token, keys: JWKSet(keys: [rebuilt.publicKey]))
            #expect(verified.payload == Array("payload".utf8))
        }
    }

    /// One key in 256 has a private part whose first byte is zero, which a reading that dropped or misplaced the
    /// padding would get wrong: over 1,000 keys (a 98 % chance of several such keys) every member is 32 bytes and
    /// equals OpenSSL's own reading.
    @Test func theMembersOfManyGeneratedKeysArePaddedAndEqualOpenSSLsReading() throws {
        for _ in 0..<1000 {
            let key = try JWK.generateP256()
            guard case .ec(.p256, let x, let y, let d) = key.material else {
                Issue.record("expected a P-256 key, found \(key)")
                return
            }
            let secret = try #require(d)
            let openSSL = try #require(key.pkey?.ecComponents(curve: .p256))
            #expect(x.count == 32 && y.count == 32 && secret.count == 32)
            #expect(openSSL.x == x && openSSL.y == y && openSSL.d == secret)
        }
    }
}
