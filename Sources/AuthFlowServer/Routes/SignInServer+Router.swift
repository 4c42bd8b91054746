import AuthFlow
import AuthFlowHTTP

/// The router: a path to its ``RouteName`` (``RouteTable/match(_:)``), the route's ``RouteRule`` enforced
/// (``admit(_:route:method:)``: method, cross-site defence, body type), then its handler (``SessionRoutes``,
/// ``LogoutRoutes``, ``SessionManagementRoutes``, ``NativeRoutes``, ``AccountRoutes``, ``ProviderEventRoutes``,
/// ``HealthRoute``, ``LoginRoutes``, ``CallbackRoutes``), all over the one ``ServerContext``. A route that may
/// change sessions runs inside ``SessionService/changing(_:)`` and is passed its ``SessionChangeLog``.
extension SignInServer {
    func route(_ request: HTTPServerRequest, segments: [String]) async throws(ServerError) -> HTTPServerResponse {
        let method = request.method == "HEAD" ? "GET" : request.method
        guard let route = routeName(segments) else { throw Self.noRoute }
        if route == .providerEvent { return try await providerEvent(request, segments: segments, method: method) }
        try admit(request, route: route, method: method)
        if route.isPasskeyRoute { return try await passkeyRoute(route, request, provider: segments[1]) }
        switch route {
        case .health: return await context.routes.health.health()
        case .session: return try await context.routes.session.sessionInfo(request)
        case .check:
            if ForwardAuthRoutes.describesOriginal(request) { return try await context.routes.forward.check(request) }
            return try await context.routes.session.check(request)
        case .forward:
            return try await context.routes.forward.forward(request, rules: segments.count == 3 ? segments[2] : nil)
        case .sessions: return try await context.routes.sessionManagement.listSessions(request)
        case .loggedOut: return try await context.routes.logout.loggedOut(request)
        case .login, .register, .link:
            let intent = SignInIntent(rawValue: segments[2]) ?? .login
            return try await context.routes.login.beginSignIn(request, provider: segments[1], intent: intent)
        case .nativeNonce: return try await context.routes.native.nonce(request, provider: segments[1])
        case .providerEvent: throw Self.noRoute
        case .passkeyRegisterOptions, .passkeyRegister, .passkeyAuthenticateOptions, .passkeyAuthenticate,
            .passkeyCredentials, .passkeyCredentialsRename, .passkeyCredentialsDelete:
            throw Self.noRoute
        case .logout, .sessionRefresh, .sessionsRevoke, .accountDelete, .callback, .disconnect, .native:
            return try await context.sessions.changing { changes async throws(ServerError) in
                try await changingRoute(route, request, segments: segments, changes: changes)
            }
        }
    }

    /// The route at routed `segments`: the table's, except under a provider with routes of its own (passkeys), where
    /// only its own routes exist (none of the OAuth login, callback or native routes).
    func routeName(_ segments: [String]) -> RouteName? {
        guard let route = RouteTable.match(segments) else { return nil }
        guard segments.count >= 3, context.providers[segments[1]]?.usesOAuth == false else { return route }
        return RouteTable.passkeyRoute(segments) ?? (route == .disconnect ? route : nil)
    }

    /// A passkey route of provider `name`; those that may change sessions run inside
    /// ``SessionService/changing(_:)`` (a rename changes no session).
    private func passkeyRoute(_ route: RouteName, _ request: HTTPServerRequest, provider name: String)
        async throws(ServerError) -> HTTPServerResponse
    {
        let passkeys = context.routes.passkeys
        switch route {
        case .passkeyRegisterOptions: return try await passkeys.registerOptions(request, provider: name)
        case .passkeyAuthenticateOptions: return try await passkeys.authenticateOptions(request, provider: name)
        case .passkeyCredentials: return try await passkeys.credentials(request, provider: name)
        case .passkeyCredentialsRename: return try await passkeys.rename(request, provider: name)
        default:
            return try await context.sessions.changing { changes async throws(ServerError) in
                switch route {
                case .passkeyRegister: try await passkeys.register(request, provider: name, changes: changes)
                case .passkeyAuthenticate: try await passkeys.authenticate(request, provider: name, changes: changes)
                default: try await passkeys.delete(request, provider: name, changes: changes)
                }
            }
        }
    }

    /// The routes that may change sessions, run inside ``SessionService/changing(_:)``.
    private func changingRoute(
        _ route: RouteName, _ request: HTTPServerRequest, segments: [String], changes: SessionChangeLog
    ) async throws(ServerError) -> HTTPServerResponse {
        let provider = segments.count >= 3 ? segments[1] : ""
        let routes = context.routes
        switch route {
        case .logout: return try await routes.logout.logout(request, changes: changes)
        case .sessionRefresh: return try await routes.native.refresh(request, changes: changes)
        case .sessionsRevoke: return try await routes.sessionManagement.revokeSession(request, changes: changes)
        case .accountDelete: return try await routes.account.deleteAccount(request, changes: changes)
        case .callback: return try await routes.callback.callback(request, provider: provider, changes: changes)
        case .disconnect: return try await routes.account.disconnect(request, provider: provider, changes: changes)
        case .native: return try await routes.native.nativeSignIn(request, provider: provider, changes: changes)
        default: throw Self.noRoute
        }
    }

    /// A provider plugin's event endpoint at `segments`; 404 when the provider declares none there.
    private func providerEvent(_ request: HTTPServerRequest, segments: [String], method: String)
        async throws(ServerError) -> HTTPServerResponse
    {
        let events = context.routes.providerEvents
        guard
            let (provider, endpoint, parameters) = try events.eventEndpoint(
                provider: segments[1], segments: Array(segments.dropFirst(2)), method: method)
        else { throw Self.noRoute }
        return try await context.sessions.changing { changes async throws(ServerError) in
            try await events.providerEvent(
                request, provider: provider, endpoint: endpoint, parameters: parameters, changes: changes)
        }
    }

    /// Enforces the table's rule of `route` before its handler runs: the method (405), the cross-site defence
    /// (403 `cross_origin_request` for a request without a bearer token from another origin; 401
    /// `not_bearer_session` for a bearer-only route without one), then the body's media type (415
    /// `unsupported_media_type`).
    func admit(_ request: HTTPServerRequest, route: RouteName, method: String) throws(ServerError) {
        let rule = RouteTable.rule(for: route)
        guard rule.methods.contains(method) else {
            throw ServerError(
                .methodNotAllowed,
                "expected \(rule.methods.joined(separator: " or ")), found \(request.method.prefix(16))",
                status: 405)
        }
        let bearer = SessionService.bearerToken(request) != nil
        switch rule.crossSite {
        case .sameOrigin where !bearer:
            try context.originCheck.check(request)
        case .bearerOnly where !bearer:
            throw ServerError(
                .notBearerSession, "expected an Authorization bearer session token, found none", status: 401)
        default:
            break
        }
        switch rule.body {
        case .json:
            guard let type = request.mediaType, type == "application/json" || type.hasSuffix("+json") else {
                throw Self.unsupportedMediaType(expected: "application/json", found: request.mediaType)
            }
        case .form where !request.body.isEmpty:
            guard request.mediaType == "application/x-www-form-urlencoded" else {
                throw Self.unsupportedMediaType(
                    expected: "application/x-www-form-urlencoded or no body", found: request.mediaType)
            }
        default:
            break
        }
    }

    static func unsupportedMediaType(expected: String, found: String?) -> ServerError {
        ServerError(
            .unsupportedMediaType,
            "expected a body of type \(expected), found " + (found.map { String($0.prefix(64)) } ?? "no content type"),
            status: 415)
    }

    static let noRoute = ServerError(
        .notFound, "expected a sign-in server route, found none at this path", status: 404)
}
