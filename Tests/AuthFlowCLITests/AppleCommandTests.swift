import AuthFlowJOSE
import Foundation
import Testing

@Suite("authflow apple client-secret")
struct AppleCommandTests {
    static let key: JWK = try! JWK.generateP256()

    func arguments(keyFile: String, ttl: String? = nil) -> [String] {
        var list = [
            "apple", "client-secret", "--team-id", "ABCDE12345", "--key-id", "KEY1234567", "--client-id",
            "com.example.web", "--key-file", keyFile,
        ]
        if let ttl { list += ["--ttl", ttl] }
        return list
    }

    @Test func printsAClientSecretThatVerifies() throws {
        let directory = try ScratchDirectory()
        let pem = try Self.key.pkcs8PEM()
        let keyFile = try directory.write("AuthKey_KEY1234567.p8", pem)
        let result = try CLIRunner.authflow(arguments(keyFile: keyFile, ttl: "7200"))
        #expect(result.status == 0, "\(result.stderr)")
        let secret = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(secret.split(separator: ".").count == 3)
        // The private key never appears in the output.
        let body = pem.split(separator: "\n").dropFirst().first.map(String.init) ?? "missing"
        #expect(!result.stdout.contains(body) && !result.stderr.contains(body))
        #expect(!result.stdout.contains("PRIVATE KEY"))

        let verifier = JWTVerifier(
            allowedAlgorithms: [.es256],
            checks: ClaimChecks(issuers: ["ABCDE12345"], audiences: ["https://appleid.apple.com"]))
        let claims = try verifier.verify(
            secret, keys: JWKSet(keys: [try Self.key.publicKey.with(keyID: "KEY1234567")]), now: Date())
        #expect(claims.subject == "com.example.web")
        #expect((claims.expiresAt ?? 0) - (claims.issuedAt ?? 0) == 7200)
        #expect(try JWSVerifier.header(of: secret).keyID == "KEY1234567")
    }

    @Test func defaultsToOneHour() throws {
        let directory = try ScratchDirectory()
        let keyFile = try directory.write("key.p8", try Self.key.pkcs8PEM())
        let result = try CLIRunner.authflow(arguments(keyFile: keyFile))
        #expect(result.status == 0, "\(result.stderr)")
        let claims = try JWTClaims(
            payload: Base64URL.decode(
                result.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".")[1]))
        #expect((claims.expiresAt ?? 0) - (claims.issuedAt ?? 0) == 3600)
    }

    @Test(
        .enabled(if: CLIRunner.python != nil || CLIRunner.peersRequired, "set AUTHFLOW_PYTHON to run the PyJWT check"))
    func printedSecretVerifiesWithPyJWT() throws {
        let directory = try ScratchDirectory()
        let keyFile = try directory.write("key.p8", try Self.key.pkcs8PEM())
        let result = try CLIRunner.authflow(arguments(keyFile: keyFile))
        try #require(result.status == 0, "\(result.stderr)")
        let jwks = try directory.write(
            "jwks.json", JWKSet(keys: [try Self.key.publicKey.with(keyID: "KEY1234567")]).jsonValue().serialized())
        let peer = try CLIRunner.peer([
            "verify", "--lib", "pyjwt", "--alg", "ES256", "--jwks", jwks, "--issuer", "ABCDE12345",
            "--audience", "https://appleid.apple.com", result.stdout.trimmingCharacters(in: .whitespacesAndNewlines),
        ])
        #expect(peer.status == 0, "\(peer.stderr)")
        #expect(peer.stdout.contains("com.example.web"))
    }

    @Test(arguments: ["15777001", "0", "-5", "abc", "1.5"])
    func refusesABadTTLAsUsageError(ttl: String) throws {
        let directory = try ScratchDirectory()
        let keyFile = try directory.write("key.p8", try Self.key.pkcs8PEM())
        let result = try CLIRunner.authflow(arguments(keyFile: keyFile, ttl: ttl))
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
    }

    @Test func acceptsTheMaximumTTL() throws {
        let directory = try ScratchDirectory()
        let keyFile = try directory.write("key.p8", try Self.key.pkcs8PEM())
        #expect(try CLIRunner.authflow(arguments(keyFile: keyFile, ttl: "15777000")).status == 0)
    }

    @Test func missingOptionsAreUsageErrors() throws {
        let result = try CLIRunner.authflow(["apple", "client-secret", "--team-id", "T", "--key-id", "K"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--client-id: expected a value (the option is required), found none"))
        #expect(try CLIRunner.authflow(["apple"]).status == 2)
        #expect(try CLIRunner.authflow(["apple", "nope"]).status == 2)
    }

    @Test func unusableKeyFileExitsOneWithoutEchoingIt() throws {
        let directory = try ScratchDirectory()
        let rsa = try JWK.generateRSA()
        let rsaPEM = try rsa.pkcs8PEM()
        let keyFile = try directory.write("rsa.p8", rsaPEM)
        let result = try CLIRunner.authflow(arguments(keyFile: keyFile))
        #expect(result.status == 1)
        #expect(result.stderr.contains("key_mismatch"))
        let body = rsaPEM.split(separator: "\n").dropFirst().first.map(String.init) ?? "missing"
        #expect(!result.stderr.contains(body))
        let garbage = try directory.write(
            "garbage.p8", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
        #expect(try CLIRunner.authflow(arguments(keyFile: garbage)).status == 1)
    }
}
