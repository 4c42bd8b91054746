import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import Foundation

/// What every route handler of ``SignInServer`` shares: the providers, settings, stores, cookies, seals, key
/// sets, logger, metrics and the one ``SessionService``. Built once per server and never changed.
final class ServerContext: Sendable {
    /// The configured providers, by name.
    let providers: [String: ResolvedProvider]
    /// Provider names in configuration order.
    let providerNames: [String]
    let options: SignInServer.Options
    let signIn: SignIn
    let stores: SignInServer.Stores
    let httpClient: any HTTPClient
    let clock: any WallClock
    /// The injected randomness, drawn in chunks (see ``BufferedRandom``).
    let random: BufferedRandom
    /// The logger every event goes through: adds the request's id, route and provider (``RequestScopedLogger``).
    let logger: any ServerLogger
    /// Each request's context, log line and metrics.
    let requestLog: RequestLog
    /// `/auth/check`'s one decision, for the immediate path and the task path alike.
    let check: AuthCheck
    let cookies: CookiePolicy
    /// Seals flows into flow cookies; `nil` when `server.secret` (or a previous secret) is too short to key it.
    let flowCookie: FlowCookie?
    let returnToPolicy: ReturnToPolicy
    let originCheck: OriginCheck
    /// The providers' JWKS caches, shared by sign-in and the provider event endpoints.
    let keySets: ProviderKeySets
    /// Revokes stored tokens at their provider when a provider is disconnected or an account deleted.
    let tokenOperations: TokenOperations
    let traces = TraceLog()
    /// The Prometheus metrics, when they are collected.
    let metrics: ServerMetrics?
    /// Issues, finds and ends sessions, and keeps the session cache.
    let sessions: SessionService
    /// Native-app sign-in (`POST /auth/{provider}/native`); `nil` when `server.secret` is too short to seal nonces.
    let native: NativeSignIn?
    /// `server.path_prefix`: which paths are routed (see ``RoutePrefix``).
    let routePrefix: RoutePrefix
    /// The id_token hint cookie and logout state of provider logout; `nil` when the secrets cannot key it.
    let providerLogout: ProviderLogout?

    /// The context of ``SignInServer/init(options:providers:stores:httpClient:clock:random:logger:metrics:)``.
    init(
        options: SignInServer.Options, providers: [ResolvedProvider], stores: SignInServer.Stores,
        httpClient: any HTTPClient, clock: any WallClock, random: any SecureRandom, logger: any ServerLogger,
        metrics: ServerMetrics?
    ) {
        let random = BufferedRandom(source: random)
        let observer: any ProviderObserver = metrics ?? NoProviderObserver()
        let keySets = ProviderKeySets(providers: providers, httpClient: httpClient, clock: clock, observer: observer)
        self.providers = Dictionary(providers.map { ($0.name, $0) }, uniquingKeysWith: { _, last in last })
        self.providerNames = providers.map(\.name)
        self.options = options
        self.signIn = SignIn(
            providers: providers, httpClient: httpClient, flowStore: stores.flows, clock: clock, random: random,
            options: options.flow, keySets: keySets, observer: observer)
        self.stores = stores
        self.httpClient = httpClient
        self.clock = clock
        self.random = random
        let scoped = RequestScopedLogger(base: logger)
        self.logger = scoped
        self.metrics = metrics
        let cookies = CookiePolicy(publicURL: options.publicURL)
        self.cookies = cookies
        let keyring = try? options.keyring()
        self.flowCookie = keyring.flatMap { try? FlowRecordSeal(keyring: $0, random: random) }.map {
            FlowCookie(seal: $0, policy: cookies)
        }
        self.returnToPolicy = ReturnToPolicy(allowed: options.allowedReturnTo)
        self.originCheck = OriginCheck(publicURL: options.publicURL)
        self.keySets = keySets
        self.tokenOperations = TokenOperations(
            providers: providers, httpClient: httpClient, clock: clock, options: options.flow, keySets: keySets,
            observer: observer, requestTimeout: AccountRoutes.revocationTimeout)
        self.sessions = SessionService(
            options: options, stores: stores, cookies: cookies, clock: clock, random: random, logger: scoped)
        self.native = keyring.flatMap { try? NativeNonceSeal(keyring: $0, random: random) }.map {
            NativeSignIn(
                providers: providers, keySets: keySets, httpClient: httpClient, flowStore: stores.flows, nonces: $0,
                clock: clock, options: options.flow, observer: observer)
        }
        self.routePrefix = RoutePrefix(options.pathPrefix)
        self.requestLog = RequestLog(
            providers: self.providers, random: random, clock: clock, metrics: metrics, logger: logger)
        self.check = AuthCheck(access: options.access)
        self.providerLogout = keyring.flatMap { try? $0.cipher(label: ProviderLogout.label, random: random) }.map {
            ProviderLogout(cipher: $0, policy: cookies, pathPrefix: options.pathPrefix)
        }
    }
}
