import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowServer
import EmbeddingSupport

/// The application's own routes, with AuthFlow's sign-in server mounted under `/auth/`.
struct App: Sendable {
    /// AuthFlow's handler: every `/auth/...` route.
    let signIn: SignInServer

    /// Routes one request.
    func handle(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        if request.path.hasPrefix("/auth/") || request.path == "/healthz" {
            return await signIn.handle(request)
        }
        switch (request.method, request.path) {
        case ("GET", "/"):
            return home()
        case ("GET", "/app"):
            return await protectedPage(request)
        default:
            return .error("not_found", message: "expected /, /app or /auth/..., found another path", status: 404)
        }
    }

    /// The public home page: a sign-in link per configured provider, each coming back to `/app`.
    func home() -> HTTPServerResponse {
        let links = signIn.providerNames.map { name in
            "<li><a href=\"/auth/\(HTMLEscaping.escape(name))/login?return_to=/app\">Sign in with "
                + "\(HTMLEscaping.escape(name))</a></li>"
        }
        return .html("<!doctype html><title>Example app</title><h1>Example app</h1><ul>\(links.joined())</ul>")
    }

    /// `/app`: only for signed-in users. The user is read from AuthFlow's `GET /auth/session`, answered in
    /// process with the browser's own cookies, so the app needs no access to AuthFlow's stores.
    func protectedPage(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        guard let user = await signedInUser(request) else {
            return .redirect(to: "/", status: 303)
        }
        let name = user.name ?? "there"
        var response = HTTPServerResponse.html(
            "<!doctype html><title>Your page</title><h1>Hello, \(HTMLEscaping.escape(name))</h1>"
                + "<p>Signed in with \(HTMLEscaping.escape(user.provider)) as user "
                + "<code id=\"user-id\">\(HTMLEscaping.escape(user.userID))</code>.</p>"
                + "<form method=\"post\" action=\"/auth/logout\"><button>Sign out</button></form>")
        response.headers["Cache-Control"] = "no-store"
        return response
    }

    /// The signed-in user of `request`, or `nil` (no session, expired, or signed out).
    func signedInUser(_ request: HTTPServerRequest) async -> SignedInUser? {
        var headers = HTTPHeaders()
        if let cookie = request.headers["Cookie"] { headers["Cookie"] = cookie }
        headers["Accept"] = "application/json"
        let answer = await signIn.handle(HTTPServerRequest(method: "GET", path: "/auth/session", headers: headers))
        guard answer.status == 200, let json = try? JSONValue.parse(answer.body) else { return nil }
        return SignedInUser(json: json)
    }
}
