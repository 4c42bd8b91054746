import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowSandbox
import AuthFlowTestSupport
import Foundation
import Testing

/// Runs the project's independent JOSE peer (Tests/e2e/peers/jwt_peer.py: PyJWT and jwcrypto) with the
/// interpreter named by `AUTHFLOW_PYTHON`. Skipped without it, unless `AUTHFLOW_REQUIRE_PEERS=1`, which
/// makes a missing interpreter a failure.
enum JOSEPeer {
    static let environment = ProcessInfo.processInfo.environment
    static let python: String? = environment["AUTHFLOW_PYTHON"].flatMap {
        FileManager.default.isExecutableFile(atPath: $0) ? $0 : nil
    }
    static let required = environment["AUTHFLOW_REQUIRE_PEERS"] == "1"
    static let shouldRun = python != nil || required

    static let script: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("e2e/peers/jwt_peer.py").path

    struct Output: Sendable {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    struct Missing: Error, CustomStringConvertible {
        var description: String { "AUTHFLOW_PYTHON does not name an executable Python (AUTHFLOW_REQUIRE_PEERS=1)" }
    }

    /// Runs the peer off the cooperative thread pool (on a thread of its own), so waiting for Python never
    /// starves the loopback servers' handlers that share the pool; the peer is killed if it overruns.
    static func run(_ arguments: [String], timeout: Double = 60) async throws -> Output {
        guard let python else { throw Missing() }
        let output = try await ChildProcess.run(executable: python, arguments: [script] + arguments, timeout: timeout)
        return Output(status: output.status, stdout: output.stdoutText, stderr: output.stderrText)
    }
}

@Suite(
    "Sandbox tokens cross-checked with PyJWT and jwcrypto",
    .enabled(if: JOSEPeer.shouldRun, "set AUTHFLOW_PYTHON to run the Python peers"))
struct PythonPeerTests {
    typealias H = SandboxHarness

    final class Scratch {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "authflow-sandbox-peer-\(UUID().uuidString)")
        init() throws { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(at: url) }
        func write(_ name: String, _ bytes: [UInt8]) throws -> String {
            let path = url.appendingPathComponent(name).path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            return path
        }
    }

    @Test(arguments: [SandboxProvider.apple, .google, .facebook], ["pyjwt", "jwcrypto"])
    func idTokensVerifyWithAnIndependentImplementation(provider: SandboxProvider, library: String) async throws {
        let harness = try H(start: Date())
        let query = H.authorizationQuery(provider).map {
            provider == .facebook && $0.0 == "scope" ? ("scope", "openid,email") : $0
        }
        let (code, _) = try await harness.code(provider, query: query)
        let idToken = try #require(try await harness.exchange(provider, code: code).json()["id_token"]?.stringValue)
        let jwksPath = try #require(harness.sandbox.endpoints(for: provider).jwks).replacingOccurrences(
            of: harness.sandbox.baseURL, with: "")
        let scratch = try Scratch()
        let jwks = try scratch.write("jwks.json", try await harness.get(jwksPath).body)
        let output = try await JOSEPeer.run([
            "verify", "--lib", library, "--alg", "RS256", "--jwks", jwks,
            "--issuer", try #require(harness.sandbox.issuer(for: provider)), "--audience", H.clientID(provider),
            idToken,
        ])
        #expect(output.status == 0, "\(output.stderr)")
        let claims = try JSONValue.parse(Array(output.stdout.utf8))
        #expect(claims["nonce"] == .string("n-0S6_WzA2Mj"))
    }

    @Test func appleNotificationVerifiesWithPyJWT() async throws {
        let harness = try H(start: Date())
        let signed = try harness.sandbox.appleNotificationJWS(
            for: AppleNotificationEvent(kind: .accountDelete, subject: "s1", clientID: H.appleClientID))
        let scratch = try Scratch()
        let jwks = try scratch.write("jwks.json", try await harness.get("/apple/auth/keys").body)
        let output = try await JOSEPeer.run([
            "verify", "--lib", "pyjwt", "--alg", "RS256", "--jwks", jwks, "--issuer",
            harness.sandbox.baseURL + "/apple",
            "--audience", H.appleClientID, signed.jws,
        ])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(try JSONValue.parse(Array(output.stdout.utf8))["events"]?.stringValue != nil)
    }

    @Test(arguments: ["pyjwt", "jwcrypto"])
    func acceptsAClientSecretSignedByAnotherImplementation(library: String) async throws {
        let harness = try H(start: Date())
        let scratch = try Scratch()
        let keyFile = try scratch.write("AuthKey.p8", Array(try harness.appleClientKey.pkcs8PEM().utf8))
        let now = Int64(harness.clock.now().timeIntervalSince1970)
        let claims: JSONValue = .object([
            "iss": .string(H.teamID), "sub": .string(H.appleClientID), "aud": .string("https://appleid.apple.com"),
            "iat": .integer(now), "exp": .integer(now + 300),
        ])
        let output = try await JOSEPeer.run([
            "sign", "--lib", library, "--alg", "ES256", "--key", keyFile, "--kid", H.appleKeyID, "--claims",
            claims.serialized(),
        ])
        #expect(output.status == 0, "\(output.stderr)")
        let secret = output.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let (code, _) = try await harness.code(.apple)
        let reply = try await harness.post(
            H.tokenPath(.apple),
            form: [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", H.redirectURI(.apple)),
                ("client_id", H.appleClientID), ("client_secret", secret),
            ])
        #expect(reply.status == 200, "\(reply.text)")
    }
}
