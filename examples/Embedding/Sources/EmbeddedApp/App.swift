import AuthFlowServer

/// The application's own routes, with AuthFlow's sign-in server mounted under `/auth/`.
struct App: Sendable {
    /// AuthFlow's handler: every `/auth/...` route, and `/healthz`.
    let signIn: SignInServer

    /// Routes one request.
    func handle(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        if request.path.hasPrefix("/auth/") || request.path == "/healthz" {
            return await signIn.handle(request)
        }
        switch (request.method, request.path) {
        case ("GET", "/"):
            return await signIn.respond(to: request, with: home)
        case ("GET", "/app"):
            return await signIn.respond(to: request, with: protectedPage)
        default:
            return .error("not_found", message: "expected /, /app or /auth/..., found another path", status: 404)
        }
    }

    /// The public home page: a sign-in link per configured provider, each coming back to `/app`.
    func home(_ request: HTTPServerRequest) async throws(ServerError) -> HTTPServerResponse {
        let links = signIn.providerNames.map { name in
            "<li><a href=\"/auth/\(HTML.escape(name))/login?return_to=/app\">Sign in with \(HTML.escape(name))</a></li>"
        }
        return .html("<!doctype html><title>Example app</title><h1>Example app</h1><ul>\(links.joined())</ul>")
    }

    /// `/app`: only for signed-in users, whom the server reads from the request's session cookie. A store that
    /// is down becomes the server's own 503 `store_unavailable` answer.
    func protectedPage(_ request: HTTPServerRequest) async throws(ServerError) -> HTTPServerResponse {
        guard let user = try await signIn.signedInUser(request) else {
            return .redirect(to: "/", status: 303)
        }
        let name = user.identity.name ?? "there"
        return .html(
            "<!doctype html><title>Your page</title><h1>Hello, \(HTML.escape(name))</h1>"
                + "<p>Signed in with \(HTML.escape(user.identity.provider)) as user "
                + "<code id=\"user-id\">\(HTML.escape(user.userID.rawValue))</code>.</p>"
                + "<form method=\"post\" action=\"/auth/logout\"><button>Sign out</button></form>")
    }
}
