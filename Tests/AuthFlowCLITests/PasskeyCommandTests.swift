import AuthFlow
import AuthFlowCurl
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowTestSupport
import Foundation
import Testing

/// `authflow users show` lists a user's passkeys and `authflow users passkeys delete USER ID` removes one, on the
/// SQLite store of a running `authflow serve` where a software authenticator registered them.
@Suite("authflow users and passkeys")
struct PasskeyCommandTests {
    /// `POST url` with a JSON body from the app's origin; the session cookie kept in `cookie`.
    static func post(_ url: String, _ body: JSONValue, origin: String, cookie: inout String?) async throws
        -> (status: Int, json: JSONValue)
    {
        var request = HTTPClientRequest(method: "POST", url: url)
        request.headers["Content-Type"] = "application/json"
        request.headers["Origin"] = origin
        if let cookie { request.headers["Cookie"] = cookie }
        request.body = Array(body.serialized().utf8)
        let response = try await CurlHTTPClient().send(request)
        if let set = response.headers["Set-Cookie"] { cookie = String(set.prefix { $0 != ";" }) }
        return (response.status, (try? JSONValue.parse(response.body)) ?? .null)
    }

    /// Registers a passkey of `authenticator` (signed in when `cookie` is set); returns the answer.
    static func register(_ authenticator: SoftwareAuthenticator, app: String, cookie: inout String?) async throws
        -> JSONValue
    {
        let options = try await post(
            app + "/auth/passkey/register/options", ["name": "alice"], origin: app, cookie: &cookie)
        try #require(options.status == 200, "\(options.json)")
        let credential = try authenticator.register(options: options.json, origin: app)
        let done = try await post(
            app + "/auth/passkey/register",
            ["ceremony": options.json["ceremony"] ?? .null, "credential": credential], origin: app, cookie: &cookie)
        try #require(done.status == 200, "\(done.json)")
        return done.json
    }

    @Test func showListsPasskeysAndDeleteRemovesOneButNotTheLast() async throws {
        let scratch = try ScratchDirectory()
        let port = try LoopbackPort.unused()
        let app = "http://localhost:\(port)"
        let secret = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        let config = try scratch.write(
            "providers.yaml",
            [
                "server:", "  listen: 127.0.0.1:\(port)", "  public_url: \(app)", "  secret: \(secret)", "store:",
                "  kind: sqlite", "  path: \(scratch.path)/authflow.sqlite", "providers:", "  passkey:",
                "    type: passkey",
            ].joined(separator: "\n") + "\n")
        let server = try ServeProcess(["serve", "--config", config])
        let ready = try await server.lines(1)
        try #require(ready.first?.contains("app listening") == true, "serve: \(server.stderr)")
        defer { server.send(SIGTERM) }

        var cookie: String?
        let first = try await Self.register(SoftwareAuthenticator(), app: app, cookie: &cookie)
        let second = try await Self.register(SoftwareAuthenticator(), app: app, cookie: &cookie)
        let user = try #require(first["user_id"]?.stringValue)
        #expect(second["user_id"]?.stringValue == user)

        let shown = try await CLIRunner.authflowOffPool(["users", "show", user, "--config", config])
        #expect(shown.status == 0, "\(shown.stderr)")
        let passkeys = try #require(try JSONValue.parse(Array(shown.stdout.utf8))["passkeys"]?.arrayValue)
        #expect(passkeys.map { $0["id"] } == [first["credential_id"], second["credential_id"]])
        #expect(passkeys.first?["provider"] == "passkey" && passkeys.first?["sign_count"] == .integer(0))
        #expect(!shown.stdout.contains("public_key"))

        let id = try #require(second["credential_id"]?.stringValue)
        let deleted = try await CLIRunner.authflowOffPool(["users", "passkeys", "delete", user, id, "--config", config])
        #expect(deleted.status == 0, "\(deleted.stderr)")
        #expect(deleted.stdout.hasPrefix("deleted passkey \(id) "))
        let last = try #require(first["credential_id"]?.stringValue)
        let refused = try await CLIRunner.authflowOffPool([
            "users", "passkeys", "delete", user, last, "--config", config,
        ])
        #expect(refused.status == 1 && refused.stderr.contains("last_identity"), "\(refused.stderr)")
        let unknown = try await CLIRunner.authflowOffPool([
            "users", "passkeys", "delete", user, "AAAA", "--config", config,
        ])
        #expect(unknown.status == 1 && unknown.stderr.contains("credential_not_found"))
        let usage = try await CLIRunner.authflowOffPool(["users", "passkeys", "delete", user])
        #expect(usage.status == 2)
    }
}
