import AuthFlowHTTP
import AuthFlowHTTPServer
import AuthFlowJOSE
import Foundation
import Testing

@Suite("authflow token verify")
struct TokenCommandTests {
    static let key: JWK = try! JWK.generateP256(keyID: "cli-ec")
    static let issuer = "https://issuer.example"
    static let audience = "cli-client"

    static func token(_ changes: [String: JSONValue?] = [:], key: JWK = key) throws -> String {
        let now = Int64(Date().timeIntervalSince1970)
        var claims: [String: JSONValue] = [
            "iss": .string(issuer), "aud": .string(audience), "sub": "u-1",
            "iat": .integer(now), "exp": .integer(now + 600), "nonce": "abc",
        ]
        for (name, value) in changes { claims[name] = value }
        return try JWT.sign(claims: claims, key: key)
    }

    static func jwksFile(_ directory: ScratchDirectory) throws -> String {
        try directory.write("jwks.json", JWKSet(keys: [key.publicKey]).jsonValue().serialized())
    }

    @Test func printsClaimsAndExitsZeroForAValidToken() throws {
        let directory = try ScratchDirectory()
        let result = try CLIRunner.authflow([
            "token", "verify", "--jwks", try Self.jwksFile(directory), "--issuer", Self.issuer,
            "--audience", Self.audience, "--nonce", "abc", "--alg", "ES256", try Self.token(),
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty)
        let claims = try JSONValue.parse(Array(result.stdout.utf8))
        #expect(claims["sub"]?.stringValue == "u-1")
        #expect(claims["iss"]?.stringValue == Self.issuer)
    }

    @Test func claimsWithControlCharactersArePrintedEscapedAndReadBack() throws {
        let directory = try ScratchDirectory()
        let name = "Eve\u{1B}[2J\u{9B}31m\u{2028}\u{202E}\u{7F}"
        let result = try CLIRunner.authflow([
            "token", "verify", "--jwks", try Self.jwksFile(directory), try Self.token(["name": .string(name)]),
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains(#""name":"Eve\u001b[2J\u009b31m\u2028\u202e\u007f""#))
        #expect(try JSONValue.parse(Array(result.stdout.utf8))["name"]?.stringValue == name)
    }

    @Test func readsTheTokenFromStandardInput() throws {
        let directory = try ScratchDirectory()
        let result = try CLIRunner.authflow(
            ["token", "verify", "--jwks", try Self.jwksFile(directory), "-"], stdin: try Self.token() + "\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("\"sub\":\"u-1\""))
    }

    @Test(arguments: [
        ("exp", JSONValue.integer(1_000_000), "token_expired"),
        ("aud", JSONValue.string("someone-else"), "audience_mismatch"),
        ("iss", JSONValue.string("https://evil.example"), "issuer_mismatch"),
        ("nonce", JSONValue.string("xyz"), "nonce_mismatch"),
    ])
    func printsTheReasonAndExitsOneForAnInvalidToken(claim: String, value: JSONValue, code: String) throws {
        let directory = try ScratchDirectory()
        let result = try CLIRunner.authflow([
            "token", "verify", "--jwks", try Self.jwksFile(directory), "--issuer", Self.issuer,
            "--audience", Self.audience, "--nonce", "abc", try Self.token([claim: value]),
        ])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains(code), "\(result.stderr)")
    }

    @Test func refusesATokenSignedByAnotherKey() throws {
        let directory = try ScratchDirectory()
        let stranger = try JWK.generateP256(keyID: "cli-ec")
        let token = try Self.token(key: stranger)
        let result = try CLIRunner.authflow(["token", "verify", "--jwks", try Self.jwksFile(directory), token])
        #expect(result.status == 1)
        #expect(result.stderr.contains("invalid_signature"))
        let signature = String(token.split(separator: ".").last ?? "")
        #expect(!result.stderr.contains(signature))
    }

    @Test func refusesAnAlgorithmOutsideTheAllowList() throws {
        let directory = try ScratchDirectory()
        let result = try CLIRunner.authflow([
            "token", "verify", "--jwks", try Self.jwksFile(directory), "--alg", "RS256,PS256", try Self.token(),
        ])
        #expect(result.status == 1)
        #expect(result.stderr.contains("algorithm_not_allowed"))
    }

    /// Serves `body` at `/jwks` on loopback for the duration of `body`.
    static func withJWKSServer(status: Int = 200, _ run: (Int) async throws -> Void) async throws {
        let document = JWKSet(keys: [key.publicKey]).jsonValue().serialized()
        let server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0)) { request in
            guard request.path == "/jwks" else { return .error("not_found", message: "no such path", status: 404) }
            var response = HTTPServerResponse.json(document)
            response.status = status
            return response
        }
        let port = try server.start()
        do {
            try await run(port)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test func fetchesTheKeySetFromALoopbackURL() async throws {
        try await Self.withJWKSServer { port in
            let result = try await CLIRunner.authflowOffPool([
                "token", "verify", "--jwks", "http://127.0.0.1:\(port)/jwks", "--issuer", Self.issuer,
                "--audience", Self.audience, try Self.token(),
            ])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("\"sub\":\"u-1\""))
        }
    }

    @Test func failsWithExitOneWhenTheKeySetURLAnswersAnError() async throws {
        try await Self.withJWKSServer(status: 404) { port in
            let result = try await CLIRunner.authflowOffPool([
                "token", "verify", "--jwks", "http://127.0.0.1:\(port)/jwks", try Self.token(),
            ])
            #expect(result.status == 1)
            #expect(result.stderr.contains("expected status 200"), "\(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
    }

    @Test(arguments: [
        "http://keys.example.com/jwks", "http://127.attacker.example/jwks", "http://127.0.0.1.attacker.example/jwks",
        "http://localhost.attacker.example/jwks", "http://127.0.0.1@attacker.example/jwks", "http://[::2]/jwks",
        "http://127.0.0.256/jwks",
    ])
    func refusesPlainHTTPKeySetURLsOffLoopback(_ url: String) throws {
        let result = try CLIRunner.authflow(["token", "verify", "--jwks", url, try Self.token()])
        #expect(result.status == 2, "\(url)")
        #expect(result.stderr.contains("must be https://"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test(arguments: [
        ["token", "verify"],
        ["token", "verify", "--jwks"],
        ["token", "verify", "--jwks", "/nonexistent/jwks.json", "a.b.c"],
        ["token", "verify", "--jwks", "x.json", "--alg", "XX999", "a.b.c"],
        ["token", "verify", "--jwks", "x.json", "--bogus", "1", "a.b.c"],
        ["token", "verify", "--jwks", "x.json", "a.b.c", "d.e.f"],
        ["token", "frobnicate"],
        ["token"],
    ])
    func usageErrorsExitTwo(arguments: [String]) throws {
        let result = try CLIRunner.authflow(arguments)
        #expect(result.status == 2, "\(arguments)")
        #expect(result.stderr.contains("usage:"))
        #expect(result.stdout.isEmpty)
    }

    @Test func unknownVerbPrintsUsageAndExitsTwo() throws {
        let result = try CLIRunner.authflow(["frobnicate"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("usage: authflow"))
        let none = try CLIRunner.authflow([])
        #expect(none.status == 2)
        let help = try CLIRunner.authflow(["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("token verify"))
    }
}
