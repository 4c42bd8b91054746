import AuthFlow
public import AuthFlowHTTP
import Foundation

extension SignInServer {
    /// Answers one request. Never throws: failures become `{"error", "message"}` responses (HTML when the
    /// client prefers it) with status 400, 401, 403, 404, 405, 429 (with `Retry-After`) or 503.
    ///
    /// Every response carries `X-Request-Id`; the request is counted in `metrics` and
    /// logged (`event: request`, with route template, status, duration and error code).
    public func handle(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        // The path is split once: the routing, the request's context and the session cache rule share it.
        let segments = context.routePrefix.routed(Self.segments(of: request.path))
        return await respond(to: request, segments: segments) { request throws(ServerError) in
            try await self.route(request, segments: segments)
        }
    }

    /// Answers `request` with `page` the way the server answers its own routes: a thrown ``ServerError``
    /// becomes the server's error response (JSON, or HTML when the client prefers it), and the response gets
    /// the server's security headers (`nosniff`, `DENY` framing, `same-origin` referrer, `no-store`) unless
    /// `page` set them, and `X-Request-Id`. The request is counted and logged like the server's own, and every
    /// event `page` logs through the server carries the request's id. `route` is the page's `route` label and
    /// log field (a fixed template of the app's, such as `/` or `/account`, never the request's own path: a
    /// label per path would grow without bound); without it, the server's template of the path, `other` for
    /// a path that is none of its routes.
    public func respond(
        to request: HTTPServerRequest, route: String? = nil,
        with page: (HTTPServerRequest) async throws(ServerError) -> HTTPServerResponse
    ) async -> HTTPServerResponse {
        await respond(
            to: request, segments: context.routePrefix.routed(Self.segments(of: request.path)), route: route, with: page
        )
    }

    /// ``respond(to:route:with:)`` for a request whose path is already split into `segments`.
    func respond(
        to request: HTTPServerRequest, segments: [String], route: String? = nil,
        with page: (HTTPServerRequest) async throws(ServerError) -> HTTPServerResponse
    ) async -> HTTPServerResponse {
        let started = context.clock.now()
        var scope = context.requestLog.context(of: request, segments: segments, route: route)
        scope.auditBatch = context.options.audit.map { AuditTrail.Batch(trail: $0) }
        let span = context.tracer?.startServerSpan(request, route: scope.route, at: started)
        return await RequestContext.$current.withValue(scope) {
            await ActiveSpan.$current.withValue(span) {
                let outcome: Result<HTTPServerResponse, ServerError>
                do throws(ServerError) { outcome = .success(try await page(request)) } catch {
                    outcome = .failure(error)
                }
                return answer(outcome, to: request, segments: segments, context: scope, span: span, started: started)
            }
        }
    }

    /// ``respond(to:segments:route:with:)`` for a page that answers without waiting, right on the caller's thread:
    /// the same request context, span, error response, headers, log line and metrics.
    private func respondAtOnce(
        to request: HTTPServerRequest, segments: [String],
        with page: (HTTPServerRequest) throws(ServerError) -> HTTPServerResponse
    ) -> HTTPServerResponse {
        let started = context.clock.now()
        let scope = context.requestLog.context(of: request, segments: segments)
        let span = context.tracer?.startServerSpan(request, route: scope.route, at: started, droppingEarly: true)
        return RequestContext.$current.withValue(scope) {
            ActiveSpan.$current.withValue(span) {
                let outcome = Result { () throws(ServerError) in try page(request) }
                return answer(outcome, to: request, segments: segments, context: scope, span: span, started: started)
            }
        }
    }

    /// The answer to `request` once its page ran: the page's response, or for a thrown error the server's error
    /// response (JSON, or HTML when the client prefers it, with `Retry-After` when the error names a wait), then
    /// what every answer gets (``complete(_:of:segments:context:failure:started:)``) and the span ended.
    private func answer(
        _ outcome: Result<HTTPServerResponse, ServerError>, to request: HTTPServerRequest, segments: [String],
        context scope: RequestContext, span: ActiveSpan?, started: Date
    ) -> HTTPServerResponse {
        var response: HTTPServerResponse
        var failure: ServerError?
        switch outcome {
        case .success(let page):
            response = page
        case .failure(let error):
            failure = error
            response = ResponseFactory.error(error, accept: request.headers["Accept"])
            if let retryAfter = error.retryAfter { response.headers["Retry-After"] = String(retryAfter) }
        }
        // The request's audit events go to the writer together, before the answer does.
        scope.auditBatch?.finish()
        complete(&response, of: request, segments: segments, context: scope, failure: failure, started: started)
        endSpan(span, of: request, context: scope, status: response.status, failure: failure)
        return response
    }

    /// What every answer gets once its route finished, in ``respond(to:segments:with:)`` and
    /// ``handleAtOnce(_:)`` alike: the security headers, `X-Request-Id`, and the request counted and logged.
    /// (A route that changes sessions had the session cache forget them already: ``SessionService/changing(_:)``.)
    /// `secured`: the answer carries the security headers already (``AuthCheck/preparedAnswer(_:)``).
    private func complete(
        _ response: inout HTTPServerResponse, of request: HTTPServerRequest, segments: [String],
        context: RequestContext, failure: ServerError?, started: Date, secured: Bool = false
    ) {
        if !secured {
            // Room for the security headers and the request id, so adding them does not regrow the fields.
            response.headers.reserveCapacity(response.headers.count + ResponseFactory.securityHeaders.count + 1)
            ResponseFactory.secure(&response)
        }
        response.headers[RequestID.header] = context.requestID
        self.context.requestLog.finish(context, status: response.status, failure: failure, started: started)
    }

    /// Answers `request` at once, without waiting, when it can: a `GET` (or `HEAD`) of `/auth/check` whose
    /// session the session cache holds (``SignInServer/Options/sessionCacheLifetime``). Returns `nil` for any
    /// other request, which ``handle(_:)`` then answers. The answer, its headers, log line and metrics are
    /// those ``handle(_:)`` gives; `HTTPServer(configuration:signIn:handler:)` passes it to the server as its
    /// immediate handler (within ``answerAtOnce(_:)`` without an app handler), so the server's most frequent
    /// request (nginx `auth_request` asks on every request it proxies) needs no task.
    package func handleAtOnce(_ request: HTTPServerRequest) -> HTTPServerResponse? {
        // A bearer is looked up (and refused beside a cookie) by `handle`.
        guard request.method == "GET" || request.method == "HEAD", request.path == context.routePrefix.checkPath,
            request.headers["Authorization"] == nil
        else { return nil }
        let started = context.clock.now()
        // A duplicated cookie, an unknown or stale session, a query or a refusal is answered by `handle`, with
        // its error; so is a user id or provider no header can carry whole. The answer was prepared once, with
        // the security headers, when the session entered the cache (``AuthCheck/preparedAnswer(_:)``).
        guard request.query.isEmpty, let entry = context.sessions.cachedCookieEntry(request, now: started),
            let answer = entry.checkAnswer
        else { return nil }
        let segments = Self.checkSegments
        let scope = context.requestLog.context(of: request, segments: segments)
        let span = context.tracer?.startServerSpan(request, route: scope.route, at: started, droppingEarly: true)
        return RequestContext.$current.withValue(scope) {
            var response = answer
            complete(
                &response, of: request, segments: segments, context: scope, failure: nil, started: started,
                secured: true)
            endSpan(span, of: request, context: scope, status: response.status, failure: nil)
            return response
        }
    }

    /// ``handleAtOnce(_:)``, and also a sign-in start that waits for nothing (``startAtOnce(_:)``): the immediate
    /// handler of a server that ``handle(_:)`` answers alone, with no app handler in front of it.
    package func answerAtOnce(_ request: HTTPServerRequest) -> HTTPServerResponse? {
        handleAtOnce(request) ?? startAtOnce(request)
    }

    /// Answers a sign-in start (`GET` or `HEAD` of `/auth/{provider}/login` or `/register`) at once, without a
    /// task, when it waits for nothing: no store (the flow lives in the sealed flow cookie; the rate limit is
    /// decided in memory or off) and no provider round trip (``LoginRoutes/beginsAtOnce(provider:intent:)``).
    /// Returns `nil` for any other request, which ``handle(_:)`` then answers. The answer, its headers, log line
    /// and metrics are those ``handle(_:)`` gives.
    package func startAtOnce(_ request: HTTPServerRequest) -> HTTPServerResponse? {
        guard request.method == "GET" || request.method == "HEAD" else { return nil }
        let segments = context.routePrefix.routed(Self.segments(of: request.path))
        guard let route = routeName(segments), route == .login || route == .register else { return nil }
        let provider = segments[1]
        let intent = SignInIntent(rawValue: segments[2]) ?? .login
        let login = context.routes.login
        guard login.beginsAtOnce(provider: provider, intent: intent) else { return nil }
        return respondAtOnce(to: request, segments: segments) { request throws(ServerError) in
            try admit(request, route: route, method: "GET")
            return try login.beginSignInAtOnce(request, provider: provider, intent: intent)
        }
    }

    /// Ends the request's server span, when it is traced.
    private func endSpan(
        _ span: ActiveSpan?, of request: HTTPServerRequest, context scope: RequestContext, status: Int,
        failure: ServerError?
    ) {
        guard let span, let tracer = context.tracer else { return }
        tracer.endServerSpan(span, request: request, context: scope, status: status, failure: failure)
    }

    /// The routed segments of `{prefix}/check`.
    static let checkSegments = ["auth", "check"]

    static let unknownProvider = ServerError(
        .unknownProvider, "expected a configured provider name, found one that is not configured", status: 400)

    /// A redirect to the public URL's `/` when `request` arrived under another host (e.g. the listen address
    /// `127.0.0.1` instead of `localhost`), since cookies and redirect URIs belong to the public URL; `nil`
    /// when it arrived under the public URL's host.
    package func publicOriginRedirect(_ request: HTTPServerRequest) -> HTTPServerResponse? {
        guard let host = request.headers["Host"]?.lowercased(),
            let publicOrigin = ReturnToPolicy.origin(of: options.publicURL),
            let scheme = publicOrigin.range(of: "://")
        else { return nil }
        // `ReturnToPolicy.origin` drops default ports, so compare the Host header the same way.
        let requested = ReturnToPolicy.origin(of: String(publicOrigin[..<scheme.upperBound]) + host)
        guard let requested, requested != publicOrigin else { return nil }
        return .redirect(to: options.publicURL + "/", status: 302)
    }

    static func segments(of path: String) -> [String] {
        // Segments are compared undecoded: provider names are `[a-z0-9_-]`, so an escaped name is not one.
        // Split on the contiguous UTF-8 bytes (`/` is ASCII) in one pass, without the leading empty segment of an
        // absolute path (so `""` has none and `/` one empty segment): walking Characters, or splitting into
        // subsequences first, costs more than the rest of a check.
        var path = path
        return path.withUTF8 { bytes -> [String] in
            guard !bytes.isEmpty else { return [] }
            var pieces: [String] = []
            pieces.reserveCapacity(4)
            var start = bytes[0] == UInt8(ascii: "/") ? 1 : 0
            for index in start..<bytes.count where bytes[index] == UInt8(ascii: "/") {
                pieces.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
                start = index + 1
            }
            pieces.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start...]), as: UTF8.self))
            return pieces
        }
    }
}
