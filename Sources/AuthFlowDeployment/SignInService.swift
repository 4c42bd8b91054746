import AuthFlow
public import AuthFlowServer
import Foundation

/// A running `authflow serve`: the sign-in server on its HTTP listener and its stores. What the CLI starts and
/// stops; usable in tests the same way. (Sandbox mode, `serve --sandbox`, is the `AuthFlowDemo` module's.)
public final class SignInService: Sendable {
    /// The request handler.
    public let server: SignInServer
    /// The listener-facing URL, `http://HOST:PORT`.
    public let listenURL: String
    /// `server.public_url`.
    package let publicURL: String
    /// The metrics listener's URL, `http://HOST:PORT` (serving `GET /metrics`), when `server.metrics_listen` is
    /// set.
    package let metricsURL: String?
    /// What a run mode started besides the server (sandbox mode: the sandbox and its throwaway database).
    package let mode: Mode
    /// The audit trail (`server.audit_log`), when configured; closed by ``stop()``.
    package let audit: AuditTrail?

    private let http: HTTPServer
    private let metricsHTTP: HTTPServer?
    /// The threads the listeners' handlers and the stores' blocking operations share; shut down by ``stop()``.
    private let blockingThreads: BlockingThreads
    /// The OpenTelemetry tracer (`server.tracing`), whose exporter ``stop()`` flushes and ends.
    private let tracer: Tracer?

    /// How a run differs from `authflow serve`'s: the stores it opens, whether the server keeps traces, the
    /// handler in front of the server, what it started and how to stop that. `AuthFlowDemo`'s sandbox mode is one.
    package struct Mode: Sendable {
        /// The stores to open instead of `store:`.
        package var storeSettings: StoreSettings?
        /// Whether the server keeps each sign-in's trace (for the demo page).
        package var keepsTraces: Bool
        /// The handler the listener runs, given the server.
        package var handler: @Sendable (SignInServer) -> HTTPHandler
        /// Whether `handler` is the server's own (``SignInServer/handle(_:)``), so a sign-in start that waits for
        /// nothing is answered on the listener's polling thread (``SignInServer/answerAtOnce(_:)``); a handler in
        /// front of the server sees every start.
        package var answersStartsAtOnce: Bool
        /// What the mode started (read back by the mode's module).
        package var started: (any Sendable)?
        /// Stops what the mode started; run by ``SignInService/stop()`` and when the start fails.
        package var stop: @Sendable () async -> Void

        /// `authflow serve`: the configured stores, no traces, the server's own handler.
        package static let normal = Mode(
            storeSettings: nil, keepsTraces: false, handler: { $0.handle }, answersStartsAtOnce: true, started: nil,
            stop: {})

        package init(
            storeSettings: StoreSettings?, keepsTraces: Bool,
            handler: @escaping @Sendable (SignInServer) -> HTTPHandler, answersStartsAtOnce: Bool = false,
            started: (any Sendable)?, stop: @escaping @Sendable () async -> Void
        ) {
            self.storeSettings = storeSettings
            self.keepsTraces = keepsTraces
            self.handler = handler
            self.answersStartsAtOnce = answersStartsAtOnce
            self.started = started
            self.stop = stop
        }
    }

    private init(
        server: SignInServer, http: HTTPServer, metrics: (listener: HTTPServer, url: String)?, listenURL: String,
        publicURL: String, mode: Mode, blockingThreads: BlockingThreads, audit: AuditTrail?, tracer: Tracer?
    ) {
        self.audit = audit
        self.tracer = tracer
        self.server = server
        self.http = http
        self.blockingThreads = blockingThreads
        self.metricsHTTP = metrics?.listener
        self.metricsURL = metrics?.url
        self.listenURL = listenURL
        self.publicURL = publicURL
        self.mode = mode
    }

    /// Starts the service.
    ///
    /// With `server.metrics_listen`, Prometheus `GET /metrics` is served on a listener of its own (never on the
    /// public one), and requests, sign-ins and provider calls are counted.
    ///
    /// - Throws: `ConfigurationError` for configuration problems, `StoreError` when the store
    ///   cannot be opened, `HTTPServerError` when a listener cannot start (the metrics
    ///   listener included). Everything started is stopped again before throwing.
    public static func start(
        configuration: Configuration, registry: ProviderRegistry, httpClient: any HTTPClient = CurlHTTPClient(),
        clock: any WallClock = SystemClock(), random: any SecureRandom = SystemRandom(),
        logger: any ServerLogger = SilentLogger()
    ) async throws -> SignInService {
        try await start(
            configuration: configuration, mode: .normal, registry: registry, httpClient: httpClient, clock: clock,
            random: random, logger: logger)
    }

    /// Starts the service in `mode`; `mode.stop` runs when the start fails.
    package static func start(
        configuration: Configuration, mode: Mode, registry: ProviderRegistry, httpClient: any HTTPClient,
        clock: any WallClock, random: any SecureRandom, logger: any ServerLogger
    ) async throws -> SignInService {
        // One pool for the listeners and the stores: a handler's store operation runs right on its thread.
        let blockingThreads = BlockingThreads(name: "authflow-http-handler")
        var metrics: (listener: HTTPServer, url: String)?
        var audit: AuditTrail?
        var tracer: Tracer?
        do {
            let options = try SignInServer.Options(configuration: configuration)
            audit = try configuration.server?.auditLog.map { destination throws(AuditTrailError) in
                try AuditTrail(destination: destination, clock: clock)
            }
            let stores = try SignInServer.Stores.open(
                mode.storeSettings ?? configuration.store, secret: options.secret,
                previousSecrets: options.previousSecrets, clock: clock, random: random,
                blockingThreads: blockingThreads)
            tracer = configuration.server?.tracing.map {
                Tracer(settings: $0, clock: clock, random: random, httpClient: httpClient)
            }
            tracer?.start()
            // Plugins prepare first (`type: oidc` fetches its issuer's discovery document).
            let providers = try await registry.resolve(
                configuration, httpClient: tracer.map { TracingHTTPClient(base: httpClient, tracer: $0) } ?? httpClient)
            var serverOptions = options
            serverOptions.keepsTraces = mode.keepsTraces
            serverOptions.audit = audit
            let metricsListen = configuration.server?.metricsListen
            let serverMetrics = try metricsListen.map { _ throws(MetricsError) in
                try ServerMetrics(providers: providers.map(\.name))
            }
            if let tracer, let serverMetrics { try tracer.registerMetrics(in: serverMetrics.registry) }
            let server = SignInServer(
                options: serverOptions, providers: providers, stores: stores, httpClient: httpClient, clock: clock,
                random: random, logger: logger, metrics: serverMetrics, tracer: tracer)
            if let serverMetrics { audit?.onDrop { serverMetrics.countAuditDrop() } }
            if let metricsListen {
                metrics = try startMetrics(server, on: metricsListen, blockingThreads: blockingThreads)
            }
            let (http, listenURL) = try startListener(
                server, configuration: configuration, handler: mode.handler(server),
                startsAtOnce: mode.answersStartsAtOnce, blockingThreads: blockingThreads)
            return SignInService(
                server: server, http: http, metrics: metrics, listenURL: listenURL, publicURL: options.publicURL,
                mode: mode, blockingThreads: blockingThreads, audit: audit, tracer: tracer)
        } catch {
            await tracer?.shutdown()
            await metrics?.listener.stop()
            audit?.close()
            blockingThreads.shutdown()
            await mode.stop()
            throw error
        }
    }

    /// Starts the metrics listener (`GET /metrics`) on `listen`.
    private static func startMetrics(
        _ server: SignInServer, on listen: ListenAddress, blockingThreads: BlockingThreads
    ) throws -> (listener: HTTPServer, url: String) {
        let listener = HTTPServer(
            configuration: HTTPServer.Configuration(host: listen.host, port: listen.port),
            blockingThreads: blockingThreads
        ) { server.metricsResponse($0) }
        let port = try listener.start()
        return (listener, "http://\(ListenAddress(host: listen.host, port: port))")
    }

    /// Starts the public listener on `server.listen` with the connection limits, running `handler`; with
    /// `startsAtOnce`, the sign-in starts that wait for nothing are answered without it.
    private static func startListener(
        _ server: SignInServer, configuration: Configuration, handler: @escaping HTTPHandler, startsAtOnce: Bool,
        blockingThreads: BlockingThreads
    ) throws -> (HTTPServer, String) {
        let listen = configuration.server?.listen ?? ListenAddress(host: "127.0.0.1", port: 8080)
        let limits = configuration.server?.limits ?? ConnectionLimits()
        let httpConfiguration = HTTPServer.Configuration(
            host: listen.host, port: listen.port, maxBodyBytes: server.largestRouteBody,
            requestTimeout: limits.requestTimeout,
            idleTimeout: limits.idleTimeout, maxConnections: limits.maxConnections,
            maxConnectionsPerClient: limits.maxConnectionsPerClient, ipv6ClientPrefix: limits.ipv6Prefix
        ).trusting(configuration.server?.trustedProxies ?? [])
        // A handler in front of the server (the demo site) passes `/auth/check` on to it, so both answer it at
        // once from the session cache. Each route's body limit is known from its method and path, before the body
        // is read.
        let http = HTTPServer(
            configuration: httpConfiguration, immediate: startsAtOnce ? server.answerAtOnce : server.handleAtOnce,
            routePolicy: server.routePolicy, blockingThreads: blockingThreads, handler: handler)
        let port = try http.start()
        let host = listen.host.contains(":") ? "[\(listen.host)]" : listen.host
        return (http, "http://\(host):\(port)")
    }

    /// Stops the listeners gracefully (in-flight requests finish), shuts their threads down and stops what the
    /// run mode started (in sandbox mode: the sandbox, and the temporary database is removed).
    public func stop() async {
        await http.stop()
        await metricsHTTP?.stop()
        await tracer?.shutdown()
        blockingThreads.shutdown()
        await mode.stop()
        audit?.close()
    }

    /// Reopens the audit log file (on SIGHUP, after log rotation renamed it); the next events land in the new file.
    package func reopenAuditLog() { audit?.reopen() }
}
