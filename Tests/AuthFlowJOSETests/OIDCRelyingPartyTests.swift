import Foundation
import Testing

@testable import AuthFlowJOSE

/// The JOSE-level cases of the OpenID Connect RP conformance tests (docs/testing.md, "OpenID Connect relying-party
/// conformance cases").
@Suite("OIDC RP conformance (JOSE)")
struct OIDCRelyingPartyTests {
    let verifier = JWTVerifier(
        allowedAlgorithms: [.rs256, .es256, .edDSA],
        checks: ClaimChecks(issuers: [TestKeys.issuer], audiences: [TestKeys.audience]))

    /// oidcc-client-test-kid-absent-single-jwks: one key per type, none with kid; RS256 without kid.
    @Test func kidAbsentWithMixedSingleKeySetSucceeds() throws {
        let rsa = try TestKeys.rsa.with(keyID: nil)
        let document: JSONValue = [
            "keys": [
                rsa.jsonValue(),
                try TestKeys.ec.publicKey.with(keyID: nil).jsonValue(),
                ["kty": "EC", "crv": "secp256k1", "x": "AAAA", "y": "AAAA"],
                try TestKeys.ed.publicKey.with(keyID: nil).jsonValue(),
            ]
        ]
        let set = try JWKSet(jsonData: document.serializedBytes())
        let token = try JWT.sign(claims: TestKeys.claims(), key: rsa, algorithm: .rs256)
        #expect(try JWSVerifier.header(of: token).keyID == nil)
        #expect(try verifier.verify(token, keys: set, now: TestKeys.now).subject == "user-1")
    }

    /// oidcc-client-test-kid-absent-multiple-jwks: AuthFlow refuses (documented choice).
    @Test func kidAbsentWithSeveralFittingKeysIsAmbiguous() throws {
        let a = try TestKeys.ec.with(keyID: nil)
        let b = try TestKeys.otherEC.publicKey.with(keyID: nil)
        let token = try JWT.sign(claims: TestKeys.claims(), key: a)
        let error = joseError { () throws(JOSEError) in
            _ = try verifier.verify(token, keys: JWKSet(keys: [a.publicKey, b]), now: TestKeys.now)
        }
        #expect(error?.code == .ambiguousKey)
    }

    /// oidcc-client-test-ignores-unparseable-key-in-jwks.
    @Test func unknownKeyTypesAreSkipped() throws {
        let document: JSONValue = [
            "keys": [
                ["kty": "AKP", "kid": "mldsa", "alg": "ML-DSA-1024-unknown", "pub": "AAAA"],
                ["kty": "FOO", "kid": "invented"],
                TestKeys.rsa.jsonValue(),
            ]
        ]
        let set = try JWKSet(jsonData: document.serializedBytes())
        #expect(
            try verifier.verify(TestKeys.idToken(key: TestKeys.rsa), keys: set, now: TestKeys.now).subject == "user-1")
    }

    /// oidcc-client-test-idtoken-sig-none.
    @Test func algNoneIsRefused() {
        let token =
            Base64URL.encode(Array(#"{"alg":"none"}"#.utf8)) + "."
            + Base64URL.encode(JSONValue.object(TestKeys.claims()).serializedBytes()) + "."
        let error = joseError { () throws(JOSEError) in
            _ = try verifier.verify(token, keys: TestKeys.publicSet, now: TestKeys.now)
        }
        #expect(error?.code == .unsignedTokenNotAllowed)
    }

    /// oidcc-client-test-invalid-sig-rs256 / -es256 (InvalidateIdTokenSignature: XOR 0x5A).
    @Test(arguments: [TestKeys.rsa, TestKeys.ec])
    func signatureXoredWith5AIsInvalid(key: JWK) throws {
        let token = TestKeys.idToken(key: key)
        let parts = token.split(separator: ".").map(String.init)
        let xored = try Base64URL.decode(parts[2]).map { $0 ^ 0x5A }
        let error = joseError { () throws(JOSEError) in
            _ = try verifier.verify(
                parts[0] + "." + parts[1] + "." + Base64URL.encode(xored), keys: TestKeys.publicSet, now: TestKeys.now)
        }
        #expect(error?.code == .invalidSignature)
    }

    /// oidcc-client-test-signing-key-rotation: unknown kid → exactly one refetch, then success.
    @Test func keyRotationRefetchesExactlyOnce() async throws {
        let endpoint = FakeJWKSEndpoint(keys: [TestKeys.rsa], maxAge: 86_400)
        let cache = JWKSCache(clock: ManualClock(TestKeys.now), fetch: { try endpoint.fetch() })
        _ = try await cache.verify(TestKeys.idToken(key: TestKeys.rsa), with: verifier)
        let rotated = try JWK.generateRSA(keyID: "rsa-2")
        endpoint.serve([rotated])
        let claims = try await cache.verify(TestKeys.idToken(key: rotated), with: verifier)
        #expect(claims.subject == "user-1")
        #expect(endpoint.calls == 2)
    }

    /// oidcc-client-test-invalid-iss / -invalid-aud / -missing-aud / -missing-iat / -nonce-invalid.
    @Test func claimMutationsOfTheConformanceSuiteAreRefused() {
        let withNonce = JWTVerifier(
            allowedAlgorithms: [.es256],
            checks: ClaimChecks(issuers: [TestKeys.issuer], audiences: [TestKeys.audience], nonce: "n-0S6_WzA2Mj"))
        let cases: [([String: JSONValue?], JOSEError.Code)] = [
            (["iss": .string(TestKeys.issuer + "1")], .issuerMismatch),
            (["aud": .string(TestKeys.audience + "1")], .audienceMismatch),
            (["aud": nil], .missingClaim),
            (["iat": nil], .missingClaim),
            (["nonce": "n-0S6_WzA2Mj1"], .nonceMismatch),
        ]
        for (changes, code) in cases {
            let token = TestKeys.idToken(changes)
            let error = joseError { () throws(JOSEError) in
                _ = try withNonce.verify(token, keys: TestKeys.publicSet, now: TestKeys.now)
            }
            #expect(error?.code == code, "\(changes.keys.sorted())")
        }
    }
}
