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
    /// The SQLite file created for this run only (sandbox mode with a SQLite store), removed by ``stop()``.
    public var temporaryDatabase: String? { throwaway?.path }

    private let http: HTTPServer
    private let throwaway: ThrowawayDatabase?

    private init(
        server: SignInServer, http: HTTPServer, listenURL: String, publicURL: String,
        sandbox: SandboxIdentityProvider?, throwaway: ThrowawayDatabase?
    ) {
        self.server = server
        self.http = http
        self.listenURL = listenURL
        self.publicURL = publicURL
        self.sandbox = sandbox
        self.throwaway = throwaway
    }

    /// Starts the service.
    ///
    /// In sandbox mode the sandbox starts first (see ``SandboxDeployment``) and the run is throwaway whatever
    /// the configuration says, so sandbox identities never reach a real store and no sandbox session is
    /// valid after a restart: `server.secret` is generated, and the store is in memory (`store.kind: memory`)
    /// or a fresh SQLite file (mode 0600, in a new 0700 temporary directory) removed by ``stop()``.
    ///
    /// - Throws: ``AuthFlow/ConfigurationError`` for configuration problems, `StoreError` when the store
    ///   cannot be opened, `SandboxError` or `HTTPServerError` when a listener cannot start. Everything
    ///   started is stopped again before throwing.
    public static func start(
        configuration loaded: Configuration, sandboxMode: Bool, registry: ProviderRegistry,
        httpClient: any HTTPClient = CurlHTTPClient(), clock: any WallClock = SystemClock(),
        random: any SecureRandom = SystemRandom(), logger: any ServerLogger = SilentLogger()
    ) async throws -> SignInService {
        var configuration = loaded
        var sandbox: SandboxIdentityProvider?
        var throwaway: ThrowawayDatabase?
        var storeSettings = configuration.store
        do {
            if sandboxMode {
                let deployment = try await SandboxDeployment.start(
                    configuration: configuration, clock: clock, random: random)
                sandbox = deployment.sandbox
                configuration = deployment.configuration
                if storeSettings.kind != .memory {
                    let database = try ThrowawayDatabase.create()
                    throwaway = database
                    storeSettings = StoreSettings(kind: .sqlite, path: database.path)
                }
            }
            let options = try SignInServer.Options(configuration: configuration)
            let stores = try SignInServer.Stores.open(
                storeSettings, secret: options.secret, clock: clock, random: random)
            // Plugins prepare first (`type: oidc` fetches its issuer's discovery document).
            let providers = try await registry.resolve(configuration, httpClient: httpClient)
            var serverOptions = options
            serverOptions.keepsTraces = sandboxMode
            let server = SignInServer(
                options: serverOptions, providers: providers, stores: stores, httpClient: httpClient, clock: clock,
                random: random, logger: logger)
            let listen = configuration.server?.listen ?? ListenAddress(host: "127.0.0.1", port: 8080)
            let handler: HTTPHandler =
                sandboxMode ? DemoSite(server: server, sandbox: sandbox).handle : server.handle
            let http = HTTPServer(
                configuration: HTTPServer.Configuration(host: listen.host, port: listen.port), handler: handler)
            let port = try http.start()
            let host = listen.host.contains(":") ? "[\(listen.host)]" : listen.host
            return SignInService(
                server: server, http: http, listenURL: "http://\(host):\(port)", publicURL: options.publicURL,
                sandbox: sandbox, throwaway: throwaway)
        } catch {
            await sandbox?.stop()
            throwaway?.remove()
            throw error
        }
    }

    /// Stops the listeners gracefully (in-flight requests finish) and removes a temporary database.
    public func stop() async {
        await http.stop()
        await sandbox?.stop()
        throwaway?.remove()
    }
}
