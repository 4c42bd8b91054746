public import AuthFlow
public import AuthFlowHTTP
public import AuthFlowJOSE
public import AuthFlowSandbox
public import AuthFlowServer
import Foundation

/// A running `authflow serve`: the sign-in server on its HTTP listener, its stores, and in sandbox mode the
/// in-process sandbox identity provider and the demo pages (``DemoSite``). What the CLI starts and stops;
/// usable in tests the same way.
public final class SignInService: Sendable {
    /// The request handler.
    public let server: SignInServer
    /// The listener-facing URL, `http://HOST:PORT`.
    public let listenURL: String
    /// `server.public_url`.
    public let publicURL: String
    /// The sandbox, in sandbox mode.
    public let sandbox: SandboxIdentityProvider?
    /// The metrics listener's URL, `http://HOST:PORT` (serving `GET /metrics`), when `server.metrics_listen` is
    /// set.
    public let metricsURL: String?
    /// The SQLite file created for this run only (sandbox mode with a SQLite store), removed by ``stop()``.
    public var temporaryDatabase: String? { throwaway?.path }

    private let http: HTTPServer
    private let metricsHTTP: HTTPServer?
    private let throwaway: ThrowawayDatabase?
    /// The threads the listeners' handlers and the stores' blocking operations share; shut down by ``stop()``.
    private let blockingThreads: BlockingThreads

    private init(
        server: SignInServer, http: HTTPServer, metricsHTTP: HTTPServer?, listenURL: String, metricsURL: String?,
        publicURL: String, sandbox: SandboxIdentityProvider?, throwaway: ThrowawayDatabase?,
        blockingThreads: BlockingThreads
    ) {
        self.server = server
        self.http = http
        self.blockingThreads = blockingThreads
        self.metricsHTTP = metricsHTTP
        self.metricsURL = metricsURL
        self.listenURL = listenURL
        self.publicURL = publicURL
        self.sandbox = sandbox
        self.throwaway = throwaway
    }

    /// Starts the service.
    ///
    /// With `server.metrics_listen`, Prometheus `GET /metrics` is served on a listener of its own (never on the
    /// public one), and requests, sign-ins and provider calls are counted.
    ///
    /// In sandbox mode the sandbox starts first (see ``SandboxDeployment``) and the run is throwaway whatever
    /// the configuration says, so sandbox identities never reach a real store and no sandbox session is
    /// valid after a restart: `server.secret` is generated, and the store is in memory (`store.kind: memory`)
    /// or a fresh SQLite file (mode 0600, in a new 0700 temporary directory) removed by ``stop()``. A
    /// configured `store.postgres_url` or `store.redis_url` is never opened (see
    /// ``SandboxDeployment/ignoredSettings(of:)`` for what to tell the operator).
    ///
    /// - Throws: `ConfigurationError` for configuration problems, `StoreError` when the store
    ///   cannot be opened, `SandboxError` or `HTTPServerError` when a listener cannot start (the metrics
    ///   listener included). Everything started is stopped again before throwing.
    public static func start(
        configuration loaded: Configuration, sandboxMode: Bool, registry: ProviderRegistry,
        httpClient: any HTTPClient = CurlHTTPClient(), clock: any WallClock = SystemClock(),
        random: any SecureRandom = SystemRandom(), logger: any ServerLogger = SilentLogger()
    ) async throws -> SignInService {
        var configuration = loaded
        var sandbox: SandboxIdentityProvider?
        var throwaway: ThrowawayDatabase?
        var storeSettings = configuration.store
        var metricsHTTP: HTTPServer?
        // One pool for the listeners and the stores: a handler's store operation runs right on its thread.
        let blockingThreads = BlockingThreads(name: "authflow-http-handler")
        do {
            if sandboxMode {
                let deployment = try await SandboxDeployment.start(
                    configuration: configuration, clock: clock, random: random)
                sandbox = deployment.sandbox
                configuration = deployment.configuration
                // Fresh settings, never the configured ones: no PostgreSQL, no Redis, whatever `store:` names.
                if storeSettings.kind == .memory {
                    storeSettings = StoreSettings(kind: .memory)
                } else {
                    let database = try ThrowawayDatabase.create()
                    throwaway = database
                    storeSettings = StoreSettings(kind: .sqlite, path: database.path)
                }
            }
            let options = try SignInServer.Options(configuration: configuration)
            let stores = try SignInServer.Stores.open(
                storeSettings, secret: options.secret, previousSecrets: options.previousSecrets, clock: clock,
                random: random, blockingThreads: blockingThreads)
            // Plugins prepare first (`type: oidc` fetches its issuer's discovery document).
            let providers = try await registry.resolve(configuration, httpClient: httpClient)
            var serverOptions = options
            serverOptions.keepsTraces = sandboxMode
            let metricsListen = configuration.server?.metricsListen
            let metrics = try metricsListen.map { _ throws(MetricsError) in
                try ServerMetrics(providers: providers.map(\.name))
            }
            let server = SignInServer(
                options: serverOptions, providers: providers, stores: stores, httpClient: httpClient, clock: clock,
                random: random, logger: logger, metrics: metrics)
            var metricsURL: String?
            if let metricsListen {
                let listener = HTTPServer(
                    configuration: HTTPServer.Configuration(host: metricsListen.host, port: metricsListen.port),
                    blockingThreads: blockingThreads
                ) { server.metricsResponse($0) }
                let port = try listener.start()
                metricsHTTP = listener
                metricsURL = "http://\(ListenAddress(host: metricsListen.host, port: port))"
            }
            let listen = configuration.server?.listen ?? ListenAddress(host: "127.0.0.1", port: 8080)
            let limits = configuration.server?.limits ?? ConnectionLimits()
            let httpConfiguration = HTTPServer.Configuration(
                host: listen.host, port: listen.port, maxBodyBytes: server.largestRouteBody,
                requestTimeout: limits.requestTimeout,
                idleTimeout: limits.idleTimeout, maxConnections: limits.maxConnections,
                maxConnectionsPerClient: limits.maxConnectionsPerClient,
                trustedProxies: configuration.server?.trustedProxies ?? [], ipv6ClientPrefix: limits.ipv6Prefix)
            let handler: HTTPHandler =
                sandboxMode ? DemoSite(server: server, sandbox: sandbox).handle : server.handle
            // The demo site passes `/auth/check` on to the server, so both answer it at once from the session cache.
            // Each route's body limit is known from its method and path, before the body is read.
            let http = HTTPServer(
                configuration: httpConfiguration, immediate: server.handleAtOnce, routePolicy: server.routePolicy,
                blockingThreads: blockingThreads, handler: handler)
            let port = try http.start()
            let host = listen.host.contains(":") ? "[\(listen.host)]" : listen.host
            return SignInService(
                server: server, http: http, metricsHTTP: metricsHTTP, listenURL: "http://\(host):\(port)",
                metricsURL: metricsURL, publicURL: options.publicURL, sandbox: sandbox, throwaway: throwaway,
                blockingThreads: blockingThreads)
        } catch {
            await metricsHTTP?.stop()
            blockingThreads.shutdown()
            await sandbox?.stop()
            throwaway?.remove()
            throw error
        }
    }

    /// Stops the listeners gracefully (in-flight requests finish), shuts their threads down and removes a
    /// temporary database.
    public func stop() async {
        await http.stop()
        await metricsHTTP?.stop()
        blockingThreads.shutdown()
        await sandbox?.stop()
        throwaway?.remove()
    }
}
