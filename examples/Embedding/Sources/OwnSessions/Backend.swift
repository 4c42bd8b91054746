import AuthFlowProviders

/// A minimal backend: AuthFlow's `SignIn` driver for the OAuth part, its own users and sessions for the rest.
struct Backend: Sendable {
    /// The flow driver.
    let signIn: SignIn
    /// Seals each sign-in's flow record into its flow cookie, so a start stores nothing server-side.
    let seal: FlowRecordSeal
    /// The application's users, keyed by provider and subject.
    let users: UserTable
    /// The application's sessions.
    let sessions: SessionTable
    /// Whether cookies get `Secure` (the public URL is https).
    let secureCookies: Bool

    /// The cookie holding this browser's sign-in in progress (its flow record, sealed).
    static let flowCookie = "own_flow"
    /// The session cookie.
    static let sessionCookie = "own_session"

    /// Routes one request.
    func handle(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        let segments = request.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        if segments.count == 3, segments.first == "auth" {
            let provider = String(segments[segments.startIndex + 1])
            switch (request.method, segments.last) {
            case ("GET", "login"):
                return await login(provider: provider)
            case ("GET", "callback"), ("POST", "callback"):
                return await callback(request, provider: provider)
            default:
                break
            }
        }
        switch (request.method, request.path) {
        case ("GET", "/me"):
            return await me(request)
        case ("POST", "/logout"):
            return await logout(request)
        default:
            return .error("not_found", message: "expected a route of this example, found none", status: 404)
        }
    }

    /// Starts a sign-in: seals its flow record into a cookie of this browser and redirects to the provider.
    func login(provider: String) async -> HTTPServerResponse {
        let start: SignInStart
        do {
            start = try await signIn.begin(
                provider: provider, returnTo: "/me", browserBinding: signIn.newBrowserBinding())
        } catch {
            return .error(error.code.rawValue, message: "cannot start the sign-in", status: 400)
        }
        let value: String
        do {
            value = try seal.seal(start.record, cookieName: Self.flowCookie)
        } catch {
            return .error(error.code.rawValue, message: "cannot seal the sign-in", status: 500)
        }
        var response = HTTPServerResponse.redirect(to: start.redirectURL)
        response.addCookie(cookie(Self.flowCookie, value, path: "/auth/", maxAge: 600))
        return response
    }

    /// Completes a sign-in: the driver checks the state against the sealed flow record of this browser's
    /// cookie (a callback without it, or with another sign-in's, is refused) and the tokens; then the user is
    /// found or created
    /// and a session of this backend's own begins.
    ///
    /// Apple answers with a cross-site POST, which carries no `SameSite=Lax` cookie: a backend using Apple
    /// either re-posts the form from its own origin first (as AuthFlow's server does) or sets the flow cookie
    /// with `SameSite=None; Secure`.
    func callback(_ request: HTTPServerRequest, provider: String) async -> HTTPServerResponse {
        let parameters: [(String, String)]
        if request.method == "POST" {
            guard let fields = try? request.formFields() else {
                return .error("invalid_request", message: "expected a form body, found another", status: 400)
            }
            parameters = fields
        } else {
            parameters = request.query
        }
        let result: SignInResult
        do {
            result = try await signIn.complete(
                provider: provider, method: request.method == "POST" ? .post : .get,
                parameters: CallbackParameters(parameters),
                flowRecord: seal.open(
                    request.cookies()[Self.flowCookie], cookieName: Self.flowCookie, provider: provider))
        } catch {
            return .error(error.code.rawValue, message: "the sign-in did not complete", status: 400)
        }
        let user = await users.signIn(result.identity)
        let sessionID = await sessions.create(userID: user.id)
        var response = HTTPServerResponse.redirect(to: result.returnTo ?? "/me", status: 303)
        response.addCookie(cookie(Self.flowCookie, "", path: "/auth/", maxAge: 0))
        response.addCookie(cookie(Self.sessionCookie, sessionID, path: "/", maxAge: Int(SessionTable.lifetime)))
        return response
    }

    /// `GET /me`: the signed-in user of this backend, or 401.
    func me(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        guard let id = request.cookies()[Self.sessionCookie], let userID = await sessions.user(of: id),
            let user = await users.user(userID)
        else {
            return .error(
                "not_signed_in", message: "expected a session cookie of this backend, found none", status: 401)
        }
        let json: JSONValue = [
            "user_id": .string(user.id), "provider": .string(user.provider), "subject": .string(user.subject),
            "name": user.name.map(JSONValue.string) ?? .null, "email": user.email.map(JSONValue.string) ?? .null,
        ]
        var response = HTTPServerResponse.json(json.serializedBytes())
        response.headers["Cache-Control"] = "no-store"
        return response
    }

    /// `POST /logout`: ends the session.
    func logout(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        if let id = request.cookies()[Self.sessionCookie] { await sessions.end(id) }
        var response = HTTPServerResponse.empty()
        response.addCookie(cookie(Self.sessionCookie, "", path: "/", maxAge: 0))
        return response
    }

    func cookie(_ name: String, _ value: String, path: String, maxAge: Int) -> String {
        "\(name)=\(value); Path=\(path); Max-Age=\(maxAge); HttpOnly; SameSite=Lax" + (secureCookies ? "; Secure" : "")
    }
}
