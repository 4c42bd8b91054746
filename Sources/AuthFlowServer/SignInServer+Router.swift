import AuthFlow
import AuthFlowHTTP

/// The router: each route of DESIGN §3 to its handler (``SessionRoutes``, ``LogoutRoutes``,
/// ``SessionManagementRoutes``, ``NativeRoutes``, ``AccountRoutes``, ``ProviderEventRoutes``, ``HealthRoute``,
/// ``LoginRoutes``, ``CallbackRoutes``), all over the one ``ServerContext``. A route that may change
/// sessions runs inside ``SessionService/changing(_:)``. Matched on the segment count and strings: array
/// patterns would build an array per case tried.
extension SignInServer {
    func route(_ request: HTTPServerRequest, segments: [String]) async throws(ServerError) -> HTTPServerResponse {
        let method = request.method == "HEAD" ? "GET" : request.method
        let count = segments.count
        let first = count > 0 ? segments[0] : ""
        if count == 1, first == "healthz" {
            try Self.only(method, "GET", found: request.method)
            return await HealthRoute(context: context).health()
        }
        if count >= 2, first == "auth" {
            if let response = try await serverRoute(request, segments: segments, method: method) { return response }
            // The server's own routes come first: a provider's routes never shadow them.
            if count >= 3, let response = try await providerRoute(request, segments: segments, method: method) {
                return response
            }
        }
        throw ServerError(.notFound, "expected a sign-in server route, found none at this path", status: 404)
    }

    /// The routes under `{prefix}/` that name no provider; `nil` for any other path.
    private func serverRoute(_ request: HTTPServerRequest, segments: [String], method: String)
        async throws(ServerError) -> HTTPServerResponse?
    {
        let sessions = context.sessions
        switch (segments.count, segments[1], segments.count == 3 ? segments[2] : "") {
        case (2, "session", _):
            try Self.only(method, "GET", found: request.method)
            return try await SessionRoutes(context: context).sessionInfo(request)
        case (2, "check", _):
            try Self.only(method, "GET", found: request.method)
            return try await SessionRoutes(context: context).check(request)
        case (2, "logout", _):
            try Self.only(method, "POST", found: request.method)
            return try await sessions.changing { () async throws(ServerError) in
                try await LogoutRoutes(context: context).logout(request)
            }
        case (2, "logged-out", _):
            try Self.only(method, "GET", found: request.method)
            return try await LogoutRoutes(context: context).loggedOut(request)
        case (2, "sessions", _):
            try Self.only(method, "GET", found: request.method)
            return try await SessionManagementRoutes(context: context).listSessions(request)
        case (3, "session", "refresh"):
            try Self.only(method, "POST", found: request.method)
            return try await sessions.changing { () async throws(ServerError) in
                try await NativeRoutes(context: context).refresh(request)
            }
        case (3, "sessions", "revoke"):
            try Self.only(method, "POST", found: request.method)
            return try await sessions.changing { () async throws(ServerError) in
                try await SessionManagementRoutes(context: context).revokeSession(request)
            }
        case (3, "account", "delete"):
            try Self.only(method, "POST", found: request.method)
            return try await sessions.changing { () async throws(ServerError) in
                try await AccountRoutes(context: context).deleteAccount(request)
            }
        default:
            return nil
        }
    }

    /// The routes under `{prefix}/{provider}/`; `nil` when none matches (a plugin's event endpoint included).
    private func providerRoute(_ request: HTTPServerRequest, segments: [String], method: String)
        async throws(ServerError) -> HTTPServerResponse?
    {
        let sessions = context.sessions
        let name = segments[1]
        let count = segments.count
        switch count == 3 ? segments[2] : "" {
        case "login", "register", "link":
            try Self.only(method, "GET", found: request.method)
            let intent = SignInIntent(rawValue: segments[2]) ?? .login
            return try await LoginRoutes(context: context).beginSignIn(request, provider: name, intent: intent)
        case "callback":
            try Self.only(method, "GET", or: "POST", found: request.method)
            return try await sessions.changing { () async throws(ServerError) in
                try await CallbackRoutes(context: context).callback(request, provider: name)
            }
        case "disconnect":
            try Self.only(method, "POST", found: request.method)
            return try await sessions.changing { () async throws(ServerError) in
                try await AccountRoutes(context: context).disconnect(request, provider: name)
            }
        case "native":
            try Self.only(method, "POST", found: request.method)
            return try await sessions.changing { () async throws(ServerError) in
                try await NativeRoutes(context: context).nativeSignIn(request, provider: name)
            }
        case "" where count == 4 && segments[2] == "native" && segments[3] == "nonce":
            try Self.only(method, "POST", found: request.method)
            return try await NativeRoutes(context: context).nonce(request, provider: name)
        default:
            let events = ProviderEventRoutes(context: context)
            guard
                let (provider, endpoint, parameters) = try events.eventEndpoint(
                    provider: name, segments: Array(segments.dropFirst(2)), method: method)
            else { return nil }
            return try await sessions.changing { () async throws(ServerError) in
                try await events.providerEvent(request, provider: provider, endpoint: endpoint, parameters: parameters)
            }
        }
    }

    /// Refuses a `method` (HEAD already read as GET) other than `allowed` or `other`: 405 `method_not_allowed`.
    /// One or two methods, not a variadic list: no array is built for the check on every request.
    private static func only(_ method: String, _ allowed: String, or other: String? = nil, found: String)
        throws(ServerError)
    {
        guard method == allowed || (other != nil && method == other) else {
            let expected = other.map { "\(allowed) or \($0)" } ?? allowed
            throw ServerError(.methodNotAllowed, "expected \(expected), found \(found.prefix(16))", status: 405)
        }
    }
}
