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
    /// is well-formed and came through a trusted proxy (`server.trusted_proxies`), otherwise a fresh one.
    func requestContext(_ request: HTTPServerRequest, segments: [String]) -> RequestContext {
        var id: String?
        if request.viaTrustedProxy,
            let offered = request.headers[RequestID.header], RequestID.isWellFormed(offered)
        {
            id = offered
        }
        let provider = segments.count >= 3 && segments[0] == "auth" && providers[segments[1]] != nil ? segments[1] : nil
        return RequestContext(
            requestID: id ?? random.requestID(), route: Self.routeTemplate(segments),
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
        metadata["request_id"] = context.requestID
        metadata["route"] = context.route
        if let provider = context.provider { metadata["provider"] = provider }
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
    /// the `route` label and log field, so user input never becomes a label value.
    static func routeTemplate(_ segments: [String]) -> String {
        switch segments {
        case [""]: return "/"
        case ["matrix"], ["healthz"], ["auth", "session"], ["auth", "check"], ["auth", "logout"],
            ["auth", "account", "delete"], ["auth", "apple", "notifications"]:
            return "/" + segments.joined(separator: "/")
        case let path where path.count == 3 && path[0] == "auth" && providerActions.contains(path[2]):
            return "/auth/{provider}/" + path[2]
        case let path where path.count == 4 && path[0] == "auth" && path[2] == "data-deletion":
            return "/auth/{provider}/data-deletion/{code}"
        default:
            return "other"
        }
    }

    /// The `/auth/{provider}/…` actions (DESIGN §3), provider events included.
    static let providerActions: Set<String> = [
        "login", "register", "link", "callback", "disconnect", "data-deletion", "deauthorize", "events",
        "backchannel-logout",
    ]
}
