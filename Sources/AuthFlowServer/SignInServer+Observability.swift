import AuthFlow
public import AuthFlowHTTP
import AuthFlowJOSE
import Foundation

extension SignInServer {
    /// `GET /metrics` for the metrics listener (`server.metrics_listen`): the Prometheus text format, 404 at
    /// any other path, 405 for other methods, 404 when the server collects no metrics. Never mount it on the
    /// public listener.
    public func metricsResponse(_ request: HTTPServerRequest) -> HTTPServerResponse {
        var response: HTTPServerResponse
        if request.path != "/metrics" || metrics == nil {
            response = .error("not_found", message: "expected GET /metrics, found another path", status: 404)
        } else if request.method != "GET" && request.method != "HEAD" {
            response = .error(
                "method_not_allowed", message: "expected GET, found \(request.method.prefix(16))", status: 405)
            response.headers["Allow"] = "GET, HEAD"
        } else {
            response = .text(metrics?.registry.render() ?? "")
            response.headers["Content-Type"] = MetricsRegistry.contentType
        }
        response.headers["Cache-Control"] = "no-store"
        response.headers[RequestID.header] = random.requestID()
        return response
    }

    /// The id, route template and provider of `request`: the id is the request's own `X-Request-Id` only when it
    /// is well-formed and came through a trusted proxy (`server.trusted_proxies`), otherwise a fresh one; the
    /// route is `route` when the app passed its page's own, else the server's template of `segments`.
    func requestContext(_ request: HTTPServerRequest, segments: [String], route: String? = nil) -> RequestContext {
        var id: String?
        if request.viaTrustedProxy,
            let offered = request.headers[RequestID.header], RequestID.isWellFormed(offered)
        {
            id = offered
        }
        // Looked up by key only: the provider's settings are not copied out to be compared with nil.
        let provider =
            segments.count >= 3 && segments[0] == "auth" && providers.index(forKey: segments[1]) != nil
            ? segments[1] : nil
        return RequestContext(
            requestID: id ?? random.requestID(),
            route: route
                ?? Self.routeTemplate(segments) { [providers] name in
                    providers[name].map { $0.plugin.eventEndpoints(for: $0) } ?? []
                },
            provider: provider)
    }

    /// Counts the answered request and writes its log line.
    func finish(_ context: RequestContext, status: Int, failure: ServerError?, started: Date) {
        if let metrics {
            let statusText = String(status)
            metrics.httpRequests.labels(context.route, statusText)?.increment()
            if context.route == "/auth/check" { metrics.sessionsChecked.labels(statusText)?.increment() }
            if status == 429 { metrics.rateLimited.labels(context.route)?.increment() }
            if let failure {
                if failure.code == .storeUnavailable {
                    metrics.storeErrors.labels(failure.store ?? "unknown")?.increment()
                } else if failure.code.rawValue == SignInError.Code.flowStoreUnavailable.rawValue {
                    metrics.storeErrors.labels("flows")?.increment()
                }
                if context.route == "/auth/{provider}/callback", let provider = context.provider {
                    metrics.signIns.labels(provider, "unknown", failure.code.rawValue)?.increment()
                }
            }
        }
        let level: ServerLogLevel =
            status >= 500 ? .error : (context.route == "/auth/check" || context.route == "/healthz") ? .debug : .info
        // The line of a level the logger drops (the checks' debug lines by default) is never built.
        guard baseLogger.isEnabled(level) else { return }
        // The fields `RequestScopedLogger` would add (this request's id, route and provider) go in here, so the
        // line's metadata is built once, in a dictionary sized for it, instead of copied and extended.
        var metadata: [String: String] = [:]
        metadata.reserveCapacity(6)
        metadata["status"] = String(status)
        metadata["duration_ms"] = Self.milliseconds(clock.now().timeIntervalSince(started))
        if let failure { metadata["code"] = failure.code.rawValue }
        context.addFields(to: &metadata)
        baseLogger.log(level, "request", metadata: metadata)
    }

    /// `seconds` as milliseconds with one decimal (`12.5`), without Foundation's formatter on the hot path.
    static func milliseconds(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds > 0 else { return "0.0" }
        let tenths = Int((min(seconds, 1e9) * 10_000).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }

    /// Counts a successful sign-in and how long its callback took.
    func countSignIn(provider: String, intent: SignInIntent, started: Date) {
        guard let metrics else { return }
        metrics.signIns.labels(provider, intent.rawValue, "success")?.increment()
        metrics.signInDuration.labels(provider)?.observe(clock.now().timeIntervalSince(started))
    }

    /// Counts a verified provider notification.
    func countNotification(provider: String, type: String, applied: Bool) {
        metrics?.notifications.labels(provider, type, applied ? "true" : "false")?.increment()
    }

    /// The route template of a path: the provider segment becomes `{provider}`, unknown paths `other`. Used as
    /// the `route` label and log field, so user input never becomes a label value. A provider's event routes
    /// are the ones its plugin declares (`eventEndpoints` gives them by provider name, asked only for paths that
    /// are none of the server's own routes), each `*` segment shown as `{code}`.
    static func routeTemplate(
        _ segments: [String], eventEndpoints: (String) -> [ProviderEventEndpoint] = { _ in [] }
    ) -> String {
        // Matched on the segment count and strings, templates as literals: array patterns would build an array
        // per case tried, and joining would build the string per request.
        let count = segments.count
        guard count > 0 else { return "other" }
        // The app's own pages (the demo's `/` and `/matrix`, say) pass their labels in (`respond(to:route:with:)`).
        if count == 1 { return segments[0] == "healthz" ? "/healthz" : "other" }
        guard segments[0] == "auth" else { return "other" }
        switch count {
        case 2:
            switch segments[1] {
            case "session": return "/auth/session"
            case "check": return "/auth/check"
            case "logout": return "/auth/logout"
            case "logged-out": return "/auth/logged-out"
            case "sessions": return "/auth/sessions"
            default: return "other"
            }
        case 3:
            if segments[1] == "account" && segments[2] == "delete" { return "/auth/account/delete" }
            if segments[1] == "session" && segments[2] == "refresh" { return "/auth/session/refresh" }
            if segments[1] == "sessions" && segments[2] == "revoke" { return "/auth/sessions/revoke" }
            return actionTemplate(segments[2]) ?? eventTemplate(segments, eventEndpoints(segments[1]))
        case 4 where segments[2] == "native" && segments[3] == "nonce":
            return "/auth/{provider}/native/nonce"
        default:
            return eventTemplate(segments, eventEndpoints(segments[1]))
        }
    }

    /// `/auth/{provider}/ACTION` for each `/auth/{provider}/…` route of the server's own, as literals; `nil` for
    /// anything else (provider events are the plugins', see ``eventTemplate(_:_:)``).
    static func actionTemplate(_ action: String) -> String? {
        switch action {
        case "login": "/auth/{provider}/login"
        case "register": "/auth/{provider}/register"
        case "link": "/auth/{provider}/link"
        case "callback": "/auth/{provider}/callback"
        case "disconnect": "/auth/{provider}/disconnect"
        case "native": "/auth/{provider}/native"
        default: nil
        }
    }

    /// `/auth/{provider}/PATH` for the first of `endpoints` that `/auth/{provider}/…` (`segments`) matches, its
    /// `*` segments as `{code}`; `other` when none does.
    static func eventTemplate(_ segments: [String], _ endpoints: [ProviderEventEndpoint]) -> String {
        let rest = Array(segments.dropFirst(2))
        guard let endpoint = endpoints.first(where: { $0.match(rest) != nil }) else { return "other" }
        return "/auth/{provider}/" + endpoint.path.map { $0 == "*" ? "{code}" : $0 }.joined(separator: "/")
    }
}
