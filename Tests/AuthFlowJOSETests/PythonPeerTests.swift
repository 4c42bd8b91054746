import Foundation
import Testing

@testable import AuthFlowJOSE

/// Tokens cross between AuthFlow and two independent implementations (PyJWT, jwcrypto).
@Suite(
    "Cross-implementation with PyJWT and jwcrypto",
    .enabled(if: PythonPeer.shouldRun, "set AUTHFLOW_PYTHON to run the Python peers"))
struct PythonPeerTests {
    static let cases: [(JWSAlgorithm, String)] = [
        (.rs256, "pyjwt"), (.rs256, "jwcrypto"), (.ps256, "pyjwt"), (.ps256, "jwcrypto"),
        (.es256, "pyjwt"), (.es256, "jwcrypto"), (.edDSA, "pyjwt"), (.edDSA, "jwcrypto"),
    ]

    static func key(for algorithm: JWSAlgorithm) -> JWK {
        switch algorithm {
        case .es256: return TestKeys.ec
        case .edDSA: return TestKeys.ed
        default: return TestKeys.rsa
        }
    }

    static func liveClaims() -> [String: JSONValue] {
        let now = Int64(Date().timeIntervalSince1970)
        return [
            "iss": .string(TestKeys.issuer), "aud": .string(TestKeys.audience), "sub": "peer-user",
            "iat": .integer(now), "exp": .integer(now + 600), "nonce": "peer-nonce",
        ]
    }

    @Test(arguments: cases)
    func peerTokensVerifyInAuthFlow(algorithm: JWSAlgorithm, library: String) throws {
        let key = Self.key(for: algorithm)
        let directory = try TemporaryDirectory()
        let keyFile = try directory.write("key.pem", try key.pkcs8PEM())
        let signed = try PythonPeer.run([
            "sign", "--lib", library, "--alg", algorithm.rawValue, "--key", keyFile,
            "--kid", key.keyID ?? "", "--claims", JSONValue.object(Self.liveClaims()).serialized(),
        ])
        try #require(signed.status == 0, "\(signed.stderr)")
        let token = signed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let verifier = JWTVerifier(
            allowedAlgorithms: [algorithm],
            checks: ClaimChecks(issuers: [TestKeys.issuer], audiences: [TestKeys.audience], nonce: "peer-nonce"))
        let claims = try verifier.verify(token, keys: TestKeys.publicSet, now: Date())
        #expect(claims.subject == "peer-user")
        #expect(try JWSVerifier.header(of: token).algorithm == algorithm.rawValue)
    }

    @Test(arguments: cases)
    func authFlowTokensVerifyInPeer(algorithm: JWSAlgorithm, library: String) throws {
        let key = Self.key(for: algorithm)
        let directory = try TemporaryDirectory()
        let jwks = try directory.write("jwks.json", TestKeys.publicSet.jsonValue().serialized())
        let token = try JWT.sign(claims: Self.liveClaims(), key: key, algorithm: algorithm)
        let verified = try PythonPeer.run([
            "verify", "--lib", library, "--alg", algorithm.rawValue, "--jwks", jwks,
            "--issuer", TestKeys.issuer, "--audience", TestKeys.audience, token,
        ])
        #expect(verified.status == 0, "\(verified.stderr)")
        let claims = try JSONValue.parse(Array(verified.stdout.utf8))
        #expect(claims["sub"]?.stringValue == "peer-user")
        // The peer must also be able to say no: a token signed by another key is refused.
        let forged = try JWT.sign(
            claims: Self.liveClaims(), key: TestKeys.otherEC.with(keyID: key.keyID), algorithm: .es256)
        let refused = try PythonPeer.run([
            "verify", "--lib", library, "--alg", algorithm.rawValue, "--jwks", jwks, forged,
        ])
        #expect(refused.status == 1)
    }

    @Test(arguments: ["pyjwt", "jwcrypto"])
    func appleClientSecretsVerifyInPeer(library: String) throws {
        let directory = try TemporaryDirectory()
        let publicKey = try TestKeys.ec.publicKey.with(keyID: "KEY1234567")
        let jwks = try directory.write("apple.json", JWKSet(keys: [publicKey]).jsonValue().serialized())
        let secret = try AppleClientSecret.make(
            teamID: "ABCDE12345", keyID: "KEY1234567", clientID: "com.example.web",
            privateKey: TestKeys.ec, issuedAt: Date(), lifetime: 3600)
        let verified = try PythonPeer.run([
            "verify", "--lib", library, "--alg", "ES256", "--jwks", jwks,
            "--issuer", "ABCDE12345", "--audience", AppleClientSecret.audience, secret,
        ])
        #expect(verified.status == 0, "\(verified.stderr)")
        let claims = try JSONValue.parse(Array(verified.stdout.utf8))
        #expect(claims["sub"]?.stringValue == "com.example.web")
        #expect(claims["aud"]?.stringValue == "https://appleid.apple.com")
    }
}
