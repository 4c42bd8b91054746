import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import Testing

@testable import AuthFlowServer

/// Requests and configurations out of shape: an oversized or non-form callback body, too many callback
/// parameters, `return_to` given twice, a `server:` section without a usable secret. Each gets its typed error
/// and changes nothing.
@Suite("Requests and server settings out of shape")
struct RequestShapeRefusalTests {
    func callback(_ body: [UInt8], contentType: String = "application/x-www-form-urlencoded") -> HTTPServerRequest {
        HTTPServerRequest(
            method: "POST", path: "/auth/google/callback", headers: ["Content-Type": contentType], body: body,
            remoteAddress: "127.0.0.1")
    }

    func refusal(_ response: HTTPServerResponse) -> (status: Int, code: String?, message: String) {
        let json = try? JSONValue.parse(response.body)
        return (response.status, json?["error"]?.stringValue, json?["message"]?.stringValue ?? "")
    }

    @Test func refusesMethodsARouteDoesNotTakeNamingTheOnesItDoes() async throws {
        try await TestDeployment.with { app in
            let cases: [(String, String, String)] = [
                ("PUT", "/auth/google/callback", "expected GET or POST, found PUT"),
                ("GET", "/auth/logout", "expected POST, found GET"),
                ("POST", "/auth/check", "expected GET, found POST"),
                ("DELETE", "/auth/google/login", "expected GET, found DELETE"),
                ("GET", "/auth/account/delete", "expected POST, found GET"),
                ("POST", "/healthz", "expected GET, found POST"),
            ]
            for (method, path, message) in cases {
                let refused = refusal(
                    await app.server.handle(HTTPServerRequest(method: method, path: path, remoteAddress: "127.0.0.1")))
                #expect(refused.status == 405, "\(method) \(path)")
                #expect(refused.code == "method_not_allowed", "\(method) \(path)")
                #expect(refused.message == message, "\(method) \(path)")
            }
            let head = await app.server.handle(
                HTTPServerRequest(method: "HEAD", path: "/auth/check", remoteAddress: "127.0.0.1"))
            #expect(head.status == 401)
        }
    }

    @Test func refusesCallbackBodiesTooLargeOrNotAForm() async throws {
        try await TestDeployment.with { app in
            let large = Array("state=abc&code=".utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: 64 * 1024)
            let tooLarge = refusal(await app.server.handle(callback(large)))
            #expect(tooLarge.status == 400)
            #expect(tooLarge.code == "invalid_request")
            #expect(tooLarge.message.contains("at most 65536 bytes"))
            let json = refusal(
                await app.server.handle(callback(Array(#"{"state":"abc"}"#.utf8), contentType: "application/json")))
            // The route table reads a form (or no body) at a callback: another media type is 415.
            #expect(json.status == 415)
            #expect(json.code == "unsupported_media_type")
            #expect(json.message.contains("application/x-www-form-urlencoded"))
        }
    }

    @Test func refusesCallbacksWithTooManyParameters() async throws {
        try await TestDeployment.with { app in
            let fields = (0..<33).map { "f\($0)=v" }.joined(separator: "&")
            let posted = refusal(await app.server.handle(callback(Array(fields.utf8))))
            #expect(posted.status == 400)
            #expect(posted.message.contains("at most 32 callback parameters, found 33"))
            let query = (0..<40).map { ("f\($0)", "v") }
            let get = refusal(
                await app.server.handle(
                    HTTPServerRequest(
                        method: "GET", path: "/auth/google/callback", query: query, remoteAddress: "127.0.0.1")))
            #expect(get.status == 400)
            #expect(get.code == "invalid_request")
            #expect(get.message.contains("found 40"))
        }
    }

    @Test func refusesAReturnToGivenTwice() async throws {
        try await TestDeployment.with { app in
            let twice = HTTPServerRequest(
                method: "GET", path: "/auth/google/login", query: [("return_to", "/"), ("return_to", "/elsewhere")],
                remoteAddress: "127.0.0.1")
            let refused = refusal(await app.server.handle(twice))
            #expect(refused.status == 400)
            #expect(refused.code == "invalid_return_to")
            #expect(refused.message.contains("at most one return_to, found 2"))
            let once = HTTPServerRequest(
                method: "GET", path: "/auth/google/login", query: [("return_to", "/")], remoteAddress: "127.0.0.1")
            #expect(await app.server.handle(once).status == 302)
        }
    }

    @Test func refusesServerSettingsWithoutAUsableSecret() {
        func issue(_ configuration: Configuration) -> ConfigurationIssue? {
            do {
                _ = try SignInServer.Options(configuration: configuration)
                return nil
            } catch {
                return error.issues.first
            }
        }
        let noServer = issue(Configuration(providers: []))
        #expect(noServer?.code == .missingKey)
        #expect(noServer?.message.contains("'server:' section") == true)
        let noSecret = issue(
            Configuration(server: ServerSettings(publicURL: "http://localhost", secret: nil), providers: []))
        #expect(noSecret?.code == .missingKey)
        let shortSecret = String(repeating: "k", count: 31)
        let short = issue(
            Configuration(
                server: ServerSettings(publicURL: "http://localhost", secret: Secret(shortSecret)), providers: []))
        #expect(short?.code == .weakSecret)
        #expect(short?.message.contains("at least 32 bytes") == true)
        #expect(short?.message.contains(shortSecret) == false, "the secret is echoed")
        let enough = issue(
            Configuration(
                server: ServerSettings(
                    publicURL: "http://localhost", secret: Secret(String(repeating: "k", count: 32))), providers: []))
        #expect(enough == nil)
    }

    @Test func serverErrorsAreEqualOnlyWithTheSameCodeMessageStatusAndProvider() {
        let error = ServerError(.invalidRequest, "expected x, found y", status: 400, provider: "google")
        #expect(error == ServerError(.invalidRequest, "expected x, found y", status: 400, provider: "google"))
        #expect(error != ServerError(.invalidRequest, "expected x, found y", status: 400, provider: "apple"))
        #expect(error != ServerError(.invalidRequest, "expected x, found y", status: 401, provider: "google"))
        #expect(error != ServerError(.invalidRequest, "expected x, found z", status: 400, provider: "google"))
        #expect(error != ServerError(.notSignedIn, "expected x, found y", status: 400, provider: "google"))
    }
}
