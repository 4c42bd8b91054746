import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import Foundation

/// What ``SignInServer`` itself uses, and its route handlers (``ServerRoutes``), each built once over what it
/// uses. Built once per server and never changed; no route handler sees it.
final class ServerContext: Sendable {
    /// The configured providers.
    let providers: ProviderDirectory
    let options: SignInServer.Options
    let stores: SignInServer.Stores
    let clock: any WallClock
    /// The injected randomness, drawn in chunks (see ``BufferedRandom``).
    let random: BufferedRandom
    let originCheck: OriginCheck
    /// Refreshes and revokes stored tokens at their provider.
    let tokenOperations: TokenOperations
    let traces: TraceLog
    /// The Prometheus metrics, when they are collected.
    let metrics: ServerMetrics?
    /// Issues, finds and ends sessions, and keeps the session cache.
    let sessions: SessionService
    /// `server.path_prefix`: which paths are routed (see ``RoutePrefix``).
    let routePrefix: RoutePrefix
    /// Each request's context, log line and metrics.
    let requestLog: RequestLog
    /// `/auth/check`'s one decision, for the immediate path and the task path alike.
    let check: AuthCheck
    /// The route handlers.
    let routes: ServerRoutes
    /// The OpenTelemetry tracer (`server.tracing`), when traces are exported.
    let tracer: Tracer?

    /// The context of ``SignInServer/init(options:providers:stores:httpClient:clock:random:logger:metrics:)``.
    init(
        options: SignInServer.Options, providers: [ResolvedProvider], stores: SignInServer.Stores,
        httpClient: any HTTPClient, clock: any WallClock, random: any SecureRandom, logger: any ServerLogger,
        metrics: ServerMetrics?, tracer: Tracer? = nil
    ) {
        let random = BufferedRandom(source: random)
        tracer?.describe(providers, publicURL: options.publicURL)
        let httpClient: any HTTPClient = tracer.map { TracingHTTPClient(base: httpClient, tracer: $0) } ?? httpClient
        self.tracer = tracer
        let observer: any ProviderObserver = metrics ?? NoProviderObserver()
        let keySets = ProviderKeySets(providers: providers, httpClient: httpClient, clock: clock, observer: observer)
        let directory = ProviderDirectory(providers)
        let scoped = RequestScopedLogger(base: logger)
        let cookies = CookiePolicy(publicURL: options.publicURL)
        self.providers = directory
        self.options = options
        self.stores = stores
        self.clock = clock
        self.random = random
        self.originCheck = OriginCheck(publicURL: options.publicURL)
        self.tokenOperations = TokenOperations(
            providers: providers, httpClient: httpClient, clock: clock, options: options.flow, keySets: keySets,
            observer: observer, requestTimeout: AccountRoutes.revocationTimeout)
        self.traces = TraceLog()
        self.metrics = metrics
        let check = AuthCheck(
            access: options.access, clock: clock, loginBase: options.publicURL + options.pathPrefix)
        self.check = check
        self.sessions = SessionService(
            options: options, stores: stores, cookies: cookies, clock: clock, random: random, logger: scoped,
            checkAnswer: { check.preparedAnswer($0) })
        self.routePrefix = RoutePrefix(options.pathPrefix)
        self.requestLog = RequestLog(
            providers: directory, random: random, clock: clock, metrics: metrics, logger: logger)
        let shared = ServerRoutes.Shared(
            options: options, providers: directory, stores: stores, clock: clock, random: random, logger: scoped,
            cookies: cookies, sessions: sessions, traces: traces, requestLog: requestLog, keySets: keySets,
            keyring: Self.keyring(options))
        self.routes = ServerRoutes(
            shared, check: check, tokenOperations: tokenOperations,
            signIn: SignIn(
                providers: providers, httpClient: httpClient, flowStore: stores.flows, clock: clock, random: random,
                options: options.flow, keySets: keySets, observer: observer),
            native: shared.keyring.flatMap { try? NativeNonceSeal(keyring: $0, random: random) }.map {
                NativeSignIn(
                    providers: providers, keySets: keySets, httpClient: httpClient, flowStore: stores.flows,
                    nonces: $0, clock: clock, options: options.flow, observer: observer)
            })
    }

    /// The keyring of `server.secret` and `server.previous_secrets`; with an audit trail, the first value of each
    /// purpose opened only under a previous secret is recorded (`secret.previous_used`).
    static func keyring(_ options: SignInServer.Options) -> SecretKeyring? {
        let keyring = try? options.keyring()
        if let audit = options.audit {
            keyring?.onPreviousSecretUsed { label in
                audit.record(
                    AuditEvent(.previousSecretUsed, actor: .server, details: ["purpose": .string(label)]))
            }
        }
        return keyring
    }
}
