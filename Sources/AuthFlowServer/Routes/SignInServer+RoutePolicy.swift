public import AuthFlowHTTP
public import AuthFlowHTTPServer

extension SignInServer {
    /// The body limit of the form routes (logout, disconnect, account deletion, session revocation): room for a
    /// `return_to` and a few fields, nothing more.
    package static let formBodyLimit = 4 * 1024

    /// The policy of each route for `HTTPServer` (pass it as `routePolicy`), from the method and path alone:
    /// the largest body the route reads, and whether its handler may start on the server's polling thread.
    ///
    /// `GET` and `HEAD` accept no body; another method on a path no route of the server takes (answered 404 or
    /// 405, the body unread), the form routes, the bearer refresh and the native nonce 4 KiB; a native
    /// sign-in 16 KiB (its JSON); a `POST` callback 64 KiB (a form-post callback's largest); a provider event
    /// endpoint the limit
    /// it declares (capped by the notification limit, 64 KiB by default). A route with a body never starts on the
    /// polling thread, so parsing it never holds up other connections. A new route declares its limit here.
    package func routePolicy(method: String, path: String) -> HTTPRoutePolicy {
        // Decided before the path is split: every `GET` (the checks a proxy sends among them) takes no body.
        let method = method == "HEAD" ? "GET" : method
        guard method != "GET" else { return Self.noBody }
        let segments = context.routePrefix.routed(Self.segments(of: path))
        guard let route = routeName(segments) else { return Self.unrouted }
        if route == .providerEvent { return eventPolicy(method: method, segments: segments) }
        guard RouteTable.rule(for: route).methods.contains(method) else { return Self.unrouted }
        switch route {
        case .callback:
            return HTTPRoutePolicy(maxBodyBytes: FormPostBounce.maximumBytes, startsOnPollingThread: false)
        case .native:
            return HTTPRoutePolicy(maxBodyBytes: NativeRoutes.maximumNativeBodyBytes, startsOnPollingThread: false)
        case .logout, .accountDelete, .sessionsRevoke, .sessionRefresh, .nativeNonce, .disconnect:
            return Self.form
        case .health, .session, .check, .forward, .sessions, .loggedOut, .login, .register, .link, .providerEvent,
            .passkeyCredentials:
            return Self.unrouted
        case .passkeyRegisterOptions, .passkeyRegister, .passkeyAuthenticateOptions, .passkeyAuthenticate,
            .passkeyCredentialsRename, .passkeyCredentialsDelete:
            return HTTPRoutePolicy(maxBodyBytes: PasskeyRoutes.maximumBodyBytes, startsOnPollingThread: false)
        }
    }

    /// The policy of a request to a server whose app has routes of its own: ``routePolicy(method:path:)`` for a
    /// path under the path prefix or another route of the sign-in server (`/healthz`), bodies of up to
    /// `otherwise` bytes starting on the polling thread (as without a policy) for the app's own paths.
    package func mountedRoutePolicy(method: String, path: String, otherwise: Int) -> HTTPRoutePolicy {
        let segments = context.routePrefix.routed(Self.segments(of: path))
        guard segments.first == RoutePrefix.routed || routeName(segments) != nil else {
            return HTTPRoutePolicy(maxBodyBytes: otherwise)
        }
        return routePolicy(method: method, path: path)
    }

    /// The policy of a provider event endpoint: the limit it declares (capped by
    /// ``Options/maximumNotificationBytes``), answered with the endpoint's own error code when a body is over it.
    private func eventPolicy(method: String, segments: [String]) -> HTTPRoutePolicy {
        guard let provider = context.providers[segments[1]] else { return Self.unrouted }
        let rest = Array(segments.dropFirst(2))
        for endpoint in provider.plugin.declaredEventEndpoints(for: provider) where endpoint.method == method {
            guard endpoint.match(rest) != nil else { continue }
            let limit = min(endpoint.maximumBodyBytes, options.maximumNotificationBytes)
            var policy = HTTPRoutePolicy(maxBodyBytes: limit, startsOnPollingThread: false)
            // The endpoint's own code, as the plugin documents it, for a body over its limit.
            let refusal = ServerError(
                .init(rawValue: endpoint.errorCode), "expected a body of at most \(limit) bytes, found more",
                status: 400)
            var response = ResponseFactory.error(refusal, accept: nil)
            ResponseFactory.secure(&response)
            policy.tooLargeResponse = response
            return policy
        }
        return Self.unrouted
    }

    /// The largest body any route of this server accepts: `HTTPServer.Configuration.maxBodyBytes` for it.
    package var largestRouteBody: Int {
        var largest = max(
            Self.formBodyLimit, FormPostBounce.maximumBytes, NativeRoutes.maximumNativeBodyBytes,
            PasskeyRoutes.maximumBodyBytes)
        for name in providerNames {
            guard let provider = context.providers[name] else { continue }
            for endpoint in provider.plugin.declaredEventEndpoints(for: provider) {
                largest = max(largest, min(endpoint.maximumBodyBytes, options.maximumNotificationBytes))
            }
        }
        return largest
    }

    private static let noBody = HTTPRoutePolicy(maxBodyBytes: 0)
    /// A request answered 404 or 405 without reading its body.
    private static let unrouted = HTTPRoutePolicy(maxBodyBytes: formBodyLimit)
    private static let form = HTTPRoutePolicy(maxBodyBytes: formBodyLimit, startsOnPollingThread: false)
}

extension HTTPServer {
    /// A server that answers with `signIn`: `handler` answers every request (an app with routes of its own
    /// passes the sign-in server's on to ``SignInServer/handle(_:)``), or, without one, `signIn` answers them
    /// all.
    ///
    /// The sign-in routes' body limits are decided from the method and path before a body is read (a larger one
    /// gets 413 unread); the app's other paths take the configuration's `maxBodyBytes`. A `GET /auth/check`
    /// whose session the session cache holds is answered right on the server's polling thread, with no task
    /// (the answer, log line and metrics are the ones ``SignInServer/handle(_:)`` gives), which makes that
    /// request, the one nginx `auth_request` sends for every request it proxies, about 40 % cheaper. Without
    /// `handler`, a sign-in start that needs no store and no provider round trip is answered there too.
    public convenience init(configuration: Configuration = .init(), signIn: SignInServer, handler: HTTPHandler? = nil) {
        let otherwise = configuration.maxBodyBytes
        let routePolicy: HTTPRoutePolicyProvider
        let answer: HTTPHandler
        let immediate: HTTPImmediateHandler
        if let handler {
            routePolicy = { method, path in signIn.mountedRoutePolicy(method: method, path: path, otherwise: otherwise)
            }
            answer = handler
            immediate = { request in signIn.handleAtOnce(request) }
        } else {
            routePolicy = { method, path in signIn.routePolicy(method: method, path: path) }
            answer = { request in await signIn.handle(request) }
            immediate = { request in signIn.answerAtOnce(request) }
        }
        self.init(configuration: configuration, immediate: immediate, routePolicy: routePolicy, handler: answer)
    }
}
