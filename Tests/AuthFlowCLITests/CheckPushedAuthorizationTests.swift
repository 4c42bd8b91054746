import AuthFlowHTTP
import AuthFlowHTTPServer
import AuthFlowJOSE
import Foundation
import Testing

/// `authflow check` against an issuer whose discovery document demands pushed authorization requests
/// (RFC 9126 §5): `par: off` is an error at the `par:` key naming `require_pushed_authorization_requests`.
@Suite struct CheckPushedAuthorizationTests {
    @Test func reportsParOffAgainstAnIssuerThatRequiresPushedRequests() async throws {
        let base = LockedBase()
        let server = HTTPServer(configuration: .init()) { request in
            let root = base.value
            guard request.path == "/.well-known/openid-configuration" else { return .empty(status: 404) }
            let document: JSONValue = [
                "issuer": .string(root), "authorization_endpoint": .string(root + "/authorize"),
                "token_endpoint": .string(root + "/token"), "jwks_uri": .string(root + "/jwks"),
                "pushed_authorization_request_endpoint": .string(root + "/par"),
                "require_pushed_authorization_requests": true, "response_types_supported": ["code"],
                "id_token_signing_alg_values_supported": ["ES256"],
            ]
            return HTTPServerResponse.json(document.serialized(), status: 200)
        }
        base.value = "http://127.0.0.1:\(try server.start())"
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("authflow-par-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("providers.yaml")
        func check(par: String) async throws -> CLIRunner.Output {
            try """
            server:
              public_url: https://app.example
              secret: \(String(repeating: "k", count: 40))
            providers:
              bank:
                type: oidc
                issuer: \(base.value)
                client_id: abc
                client_secret: s
                par: \(par)

            """.write(to: file, atomically: true, encoding: .utf8)
            return try await CLIRunner.authflowOffPool(["check", "--config", file.path])
        }
        let off = try await check(par: "off")
        let auto = try await check(par: "auto")
        await server.stop()
        try? FileManager.default.removeItem(at: directory)
        #expect(off.status == 1)
        #expect(off.stderr.contains("\(file.path):10:"))
        #expect(off.stderr.contains("require_pushed_authorization_requests: true"))
        #expect(auto.status == 0, "\(auto.stderr)")
    }
}

/// The listener's base URL, known once it started.
final class LockedBase: @unchecked Sendable {
    private let lock = NSLock()
    private var stored = ""
    var value: String {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
