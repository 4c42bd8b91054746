package import AuthFlow
package import AuthFlowHTTP
package import AuthFlowJOSE

/// The sign-in server's Prometheus metrics (docs/operations.md lists them with their meaning).
///
/// Create one per server, pass it to ``SignInServer`` (which also hands it to the sign-in driver and the JWKS
/// caches as their `ProviderObserver`), and serve ``registry`` on a listener of its own
/// (``SignInServer/metricsResponse(_:)``). Every label set is bounded: provider names come from the
/// configuration, outcomes are typed error codes, routes are templates. Series of the hot paths are created
/// up front, so counting an `/auth/check` is one atomic add with no lock.
package final class ServerMetrics: ProviderObserver {
    /// The registry rendered at `/metrics`.
    package let registry: MetricsRegistry

    let signIns: CounterFamily
    let signInDuration: HistogramFamily
    let providerRequestDuration: HistogramFamily
    let providerRequests: CounterFamily
    let jwksFetches: CounterFamily
    let jwksStaleServed: CounterFamily
    let sessionsChecked: CounterFamily
    let rateLimited: CounterFamily
    let notifications: CounterFamily
    let storeErrors: CounterFamily
    let httpRequests: CounterFamily
    let checkDuration: HistogramFamily
    let auditDropped: CounterFamily

    /// The stores whose failures are counted.
    static let stores = ["accounts", "sessions", "flows"]
    /// Statuses pre-created for the routes answered most often.
    static let hotSeries: [[String]] = [
        ["/auth/check", "202"], ["/auth/check", "401"], ["/auth/check", "403"], ["/auth/session", "200"],
        ["/auth/session", "401"],
        ["/auth/{provider}/login", "302"], ["/auth/{provider}/callback", "302"], ["/auth/{provider}/callback", "303"],
        ["/healthz", "200"],
        ["/auth/forward", "202"], ["/auth/forward", "302"], ["/auth/forward", "401"], ["/auth/forward", "403"],
    ]

    /// The routes a proxy asks before every request it passes on, whose answer time ``checkDuration`` records.
    static let checkRoutes = ["/auth/check", "/auth/forward"]
    /// Finer than the default buckets: a check answered from the session cache takes well under a millisecond.
    static let checkBuckets = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]

    /// Registers the server's metrics, and the process metrics, in a new registry.
    ///
    /// - Parameter providers: the configured provider names (the only values of every `provider` label).
    /// - Throws: `MetricsError` only if the metric names clashed, which they do not.
    package init(providers: [String]) throws(MetricsError) {
        let registry = MetricsRegistry()
        let endpoints = ProviderRequestEndpoint.allCases.map(\.rawValue)
        signIns = try registry.counter(
            "authflow_sign_ins_total",
            help: "Completed callbacks by provider, intent and outcome (success or the typed error code).",
            labels: ["provider", "intent", "outcome"],
            preregistered: providers.flatMap { provider in
                SignInIntent.allCases.map { [provider, $0.rawValue, "success"] }
            })
        signInDuration = try registry.histogram(
            "authflow_sign_in_duration_seconds",
            help: "Time from the provider's callback arriving to the session being created, for successful sign-ins.",
            labels: ["provider"], preregistered: providers.map { [$0] })
        providerRequestDuration = try registry.histogram(
            "authflow_provider_request_duration_seconds",
            help: "Duration of requests to provider endpoints (token, userinfo, jwks, revocation).",
            labels: ["provider", "endpoint"],
            preregistered: providers.flatMap { provider in endpoints.map { [provider, $0] } })
        providerRequests = try registry.counter(
            "authflow_provider_requests_total",
            help: "Requests to provider endpoints by HTTP status (\"error\" when no response arrived).",
            labels: ["provider", "endpoint", "status"])
        jwksFetches = try registry.counter(
            "authflow_jwks_fetches_total", help: "JWKS fetches by reason (cold, unknown_kid, expired).",
            labels: ["provider", "reason"],
            preregistered: providers.flatMap { provider in JWKSFetchReason.allCases.map { [provider, $0.rawValue] } })
        jwksStaleServed = try registry.counter(
            "authflow_jwks_stale_served_total",
            help: "Times an older JWKS was served because refetching it failed.", labels: ["provider"],
            preregistered: providers.map { [$0] })
        sessionsChecked = try registry.counter(
            "authflow_sessions_checked_total",
            help: "GET /auth/check answers by status (202 signed in, 401 not, 403 refused by the access rules).",
            labels: ["result"], preregistered: [["202"], ["401"], ["403"]])
        rateLimited = try registry.counter(
            "authflow_rate_limited_total", help: "Requests refused with 429 by route.", labels: ["route"])
        notifications = try registry.counter(
            "authflow_notifications_total",
            help: "Provider notifications by type and whether they were applied (false: refused or a replay).",
            labels: ["provider", "type", "applied"])
        storeErrors = try registry.counter(
            "authflow_store_errors_total", help: "Store operations that failed, by store.", labels: ["store"],
            preregistered: Self.stores.map { [$0] })
        httpRequests = try registry.counter(
            "authflow_http_requests_total", help: "HTTP responses by route template and status.",
            labels: ["route", "status"], preregistered: Self.hotSeries)
        auditDropped = try registry.counter(
            "authflow_audit_dropped_total",
            help: "Audit events dropped because the audit writer fell behind (its queue was full).", labels: [],
            preregistered: [[]])
        checkDuration = try registry.histogram(
            "authflow_check_duration_seconds",
            help: "Time to answer GET /auth/check and /auth/forward (the proxy waits this long on every request).",
            labels: ["route"], buckets: Self.checkBuckets, preregistered: Self.checkRoutes.map { [$0] })
        try ProcessMetrics.register(in: registry)
        self.registry = registry
    }

    /// Records a request to a provider endpoint.
    package func providerRequestFinished(
        provider: String, endpoint: ProviderRequestEndpoint, status: Int?, seconds: Double
    ) {
        providerRequestDuration.labels(provider, endpoint.rawValue)?.observe(seconds)
        providerRequests.labels(provider, endpoint.rawValue, status.map { String($0) } ?? "error")?.increment()
    }

    /// Records a JWKS fetch.
    package func jwksFetchStarted(provider: String, reason: JWKSFetchReason) {
        jwksFetches.labels(provider, reason.rawValue)?.increment()
    }

    /// Counts an audit event dropped because the audit writer's queue was full.
    package func countAuditDrop() { auditDropped.labels([])?.increment() }

    /// Records a stale JWKS served.
    package func jwksStaleServed(provider: String) {
        jwksStaleServed.labels(provider)?.increment()
    }
}
