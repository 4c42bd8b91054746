import AuthFlowHTTP
import Testing

/// Router without a network: dispatch, parameters, 404/405.
@Suite("Router")
struct RouterTests {
    static let router: Router = {
        var router = Router()
        router.add("GET", "/auth/{provider}/login") { .text("login " + ($0.pathParameters["provider"] ?? "")) }
        router.add("POST", "/auth/{provider}/callback") { .text("post " + ($0.pathParameters["provider"] ?? "")) }
        router.add("GET", "/auth/{provider}/callback") { .text("get " + ($0.pathParameters["provider"] ?? "")) }
        router.add("GET", "/healthz") { _ in .text("ok") }
        router.add("GET", "/files/{a}/{b}") {
            .text(($0.pathParameters["a"] ?? "") + "|" + ($0.pathParameters["b"] ?? ""))
        }
        return router
    }()

    private func send(_ method: String, _ path: String) async -> HTTPServerResponse {
        await Self.router.handle(HTTPServerRequest(method: method, path: path))
    }

    @Test func dispatchesByMethodAndPattern() async {
        #expect(await send("GET", "/auth/apple/login").bodyText == "login apple")
        #expect(await send("POST", "/auth/apple/callback").bodyText == "post apple")
        #expect(await send("GET", "/auth/x/callback").bodyText == "get x")
        #expect(await send("GET", "/healthz").bodyText == "ok")
    }

    @Test func decodesParametersPerSegment() async {
        #expect(await send("GET", "/files/a%2Fb/c%20d+e").bodyText == "a/b|c d+e")
    }

    @Test func answers404ForUnknownPathsAndEmptyParameters() async {
        for path in ["/auth//login", "/auth/apple/login/", "/healthz/x", "healthz", "", "/AUTH/apple/login"] {
            let response = await send("GET", path)
            #expect(response.status == 404, "\(path)")
            #expect(response.bodyText.hasPrefix(#"{"error":"not_found""#))
        }
    }

    @Test func answers405WithAllowedMethods() async {
        let response = await send("PUT", "/auth/apple/callback")
        #expect(response.status == 405)
        #expect(response.headers["Allow"] == "POST, GET")
        #expect(response.headers["Content-Type"] == "application/json")
    }

    @Test func headFallsBackToGet() async {
        #expect(await send("HEAD", "/healthz").status == 200)
    }
}

extension HTTPServerResponse {
    var bodyText: String { String(decoding: body, as: UTF8.self) }
}
