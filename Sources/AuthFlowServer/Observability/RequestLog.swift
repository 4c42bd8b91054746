import AuthFlow
import AuthFlowHTTP
import Foundation

/// The request log: each request's context (its id, route template and provider), and once answered its log line
/// and metrics; also the sign-in and notification counts of the routes that complete them. Built once per server.
final class RequestLog: Sendable {
    /// The configured providers, by name (a path's provider segment is one of them or no provider).
    let providers: ProviderDirectory
    let random: BufferedRandom
    let clock: any WallClock
    /// The Prometheus metrics, when they are collected.
    let metrics: ServerMetrics?
    /// The logger the server was given: the request line is written with the request's fields already in place.
    let logger: any ServerLogger
    /// The series a signed-in `/auth/check` (202) counts in, looked up once: the answer a proxy asks for most.
    private let checkPassed: CheckSeries?

    /// The series of one route and status, resolved from their labels once.
    private struct CheckSeries: Sendable {
        let requests: MetricCounter?
        let checked: MetricCounter?
        let duration: MetricHistogram?
    }

    init(
        providers: ProviderDirectory, random: BufferedRandom, clock: any WallClock, metrics: ServerMetrics?,
        logger: any ServerLogger
    ) {
        self.providers = providers
        self.random = random
        self.clock = clock
        self.metrics = metrics
        self.logger = logger
        self.checkPassed = metrics.map { metrics in
            CheckSeries(
                requests: metrics.httpRequests.labels("/auth/check", "202"),
                checked: metrics.sessionsChecked.labels("202"),
                duration: metrics.checkDuration.labels("/auth/check"))
        }
    }

    /// The id, route template and provider of `request`: the id is the request's own `X-Request-Id` only when it
    /// is well-formed and came through a trusted proxy (`server.trusted_proxies`), otherwise a fresh one; the
    /// route is `route` when the app passed its page's own, else the server's template of `segments`.
    func context(of request: HTTPServerRequest, segments: [String], route: String? = nil) -> RequestContext {
        var id: String?
        if request.viaTrustedProxy,
            let offered = request.headers[RequestID.header], RequestID.isWellFormed(offered)
        {
            id = offered
        }
        // Looked up by key only: the provider's settings are not copied out to be compared with nil.
        let provider =
            segments.count >= 3 && segments[0] == "auth" && providers.contains(segments[1])
            ? segments[1] : nil
        return RequestContext(
            requestID: id ?? random.requestID(),
            route: route
                ?? RouteTable.template(segments) { [providers] name in
                    providers[name].map { $0.plugin.declaredEventEndpoints(for: $0) } ?? []
                },
            provider: provider, clientAddress: request.remoteAddress)
    }

    /// Counts the answered request and writes its log line.
    func finish(_ context: RequestContext, status: Int, failure: ServerError?, started: Date) {
        if let series = checkPassed, status == 202, failure == nil, context.route == "/auth/check" {
            // The same series the labels below name, without building and hashing them per request.
            series.requests?.increment()
            series.checked?.increment()
            series.duration?.observe(clock.now().timeIntervalSince(started))
        } else if let metrics {
            let statusText = String(status)
            metrics.httpRequests.labels(context.route, statusText)?.increment()
            if context.route == "/auth/check" { metrics.sessionsChecked.labels(statusText)?.increment() }
            if ServerMetrics.checkRoutes.contains(context.route) {
                metrics.checkDuration.labels(context.route)?.observe(clock.now().timeIntervalSince(started))
            }
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
        guard logger.isEnabled(level) else { return }
        // The fields `RequestScopedLogger` would add (this request's id, route and provider) go in here, so the
        // line's metadata is built once, in a dictionary sized for it, instead of copied and extended.
        var metadata: [String: String] = [:]
        metadata.reserveCapacity(6)
        metadata["status"] = String(status)
        metadata["duration_ms"] = Self.milliseconds(clock.now().timeIntervalSince(started))
        if let failure { metadata["code"] = failure.code.rawValue }
        context.addFields(to: &metadata)
        logger.log(level, "request", metadata: metadata)
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
}
