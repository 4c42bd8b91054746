package import AuthFlowDeployment
package import AuthFlowSandbox

extension SignInService {
    /// What sandbox mode started besides the server.
    struct SandboxRun: Sendable {
        let sandbox: SandboxIdentityProvider
        let throwaway: ThrowawayDatabase?
    }

    /// The sandbox, in sandbox mode.
    package var sandbox: SandboxIdentityProvider? { (mode.started as? SandboxRun)?.sandbox }

    /// The SQLite file created for this run only (sandbox mode with a SQLite store), removed by `stop()`.
    package var temporaryDatabase: String? { (mode.started as? SandboxRun)?.throwaway?.path }

    /// Starts the service, in sandbox mode (`authflow serve --sandbox`, `authflow demo`) when `sandboxMode` is set.
    ///
    /// In sandbox mode the sandbox starts first (see ``SandboxDeployment``) and the run is throwaway whatever
    /// the configuration says, so sandbox identities never reach a real store and no sandbox session is
    /// valid after a restart: `server.secret` is generated, and the store is in memory (`store.kind: memory`)
    /// or a fresh SQLite file (mode 0600, in a new 0700 temporary directory) removed by `stop()`. A
    /// configured `store.postgres_url` or `store.redis_url` is never opened (see
    /// ``SandboxDeployment/ignoredSettings(of:)`` for what to tell the operator). The listener serves the demo
    /// pages (``DemoSite``) in front of the server, and the server keeps each sign-in's trace.
    ///
    /// - Throws: `ConfigurationError` for configuration problems, `StoreError` when the store
    ///   cannot be opened, `SandboxError` or `HTTPServerError` when a listener cannot start (the metrics
    ///   listener included). Everything started is stopped again before throwing.
    package static func start(
        configuration: Configuration, sandboxMode: Bool, registry: ProviderRegistry,
        httpClient: any HTTPClient = CurlHTTPClient(), clock: any WallClock = SystemClock(),
        random: any SecureRandom = SystemRandom(), logger: any ServerLogger = SilentLogger()
    ) async throws -> SignInService {
        guard sandboxMode else {
            return try await start(
                configuration: configuration, registry: registry, httpClient: httpClient, clock: clock, random: random,
                logger: logger)
        }
        let deployment = try await SandboxDeployment.start(configuration: configuration, clock: clock, random: random)
        let mode: Mode
        do {
            mode = try sandboxRunMode(deployment.sandbox, store: configuration.store)
        } catch {
            await deployment.stop()
            throw error
        }
        return try await start(
            configuration: deployment.configuration, mode: mode, registry: registry, httpClient: httpClient,
            clock: clock, random: random, logger: logger)
    }

    /// Sandbox mode over a started `sandbox`: fresh stores, never the configured ones (no PostgreSQL, no Redis,
    /// whatever `store:` names), traces kept, the demo pages in front of the server.
    static func sandboxRunMode(_ sandbox: SandboxIdentityProvider, store: StoreSettings) throws -> Mode {
        var throwaway: ThrowawayDatabase?
        let storeSettings: StoreSettings
        if store.kind == .memory {
            storeSettings = StoreSettings(kind: .memory)
        } else {
            let database = try ThrowawayDatabase.create()
            throwaway = database
            storeSettings = StoreSettings(kind: .sqlite, path: database.path)
        }
        let run = SandboxRun(sandbox: sandbox, throwaway: throwaway)
        return Mode(
            storeSettings: storeSettings, keepsTraces: true,
            handler: { server in DemoSite(server: server, sandbox: sandbox).handle }, started: run,
            stop: {
                await run.sandbox.stop()
                run.throwaway?.remove()
            })
    }
}
