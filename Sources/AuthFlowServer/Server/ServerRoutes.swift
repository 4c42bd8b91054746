import AuthFlow
import AuthFlowJOSE

/// The route handlers of ``SignInServer``, each a small value over exactly what its routes use, built once at
/// server start; the router (`SignInServer+Router.swift`) calls them.
struct ServerRoutes: Sendable {
    let session: SessionRoutes
    let forward: ForwardAuthRoutes
    let sessionManagement: SessionManagementRoutes
    let logout: LogoutRoutes
    let login: LoginRoutes
    let callback: CallbackRoutes
    let native: NativeRoutes
    let account: AccountRoutes
    let providerEvents: ProviderEventRoutes
    let health: HealthRoute
    let passkeys: PasskeyRoutes

    /// The parts several route groups share, from which each takes what it uses.
    struct Shared: Sendable {
        let options: SignInServer.Options
        let providers: ProviderDirectory
        let stores: SignInServer.Stores
        let clock: any WallClock
        let random: BufferedRandom
        /// The logger every event goes through: adds the request's id, route and provider.
        let logger: any ServerLogger
        let cookies: CookiePolicy
        let sessions: SessionService
        let traces: TraceLog
        let requestLog: RequestLog
        /// The providers' JWKS caches, shared by sign-in and the provider event endpoints.
        let keySets: ProviderKeySets
        /// The keys of `server.secret` and `server.previous_secrets`; `nil` when a secret is too short to key them.
        let keyring: SecretKeyring?
    }

    init(
        _ shared: Shared, check: AuthCheck, tokenOperations: TokenOperations, signIn: SignIn, native: NativeSignIn?
    ) {
        let s = shared
        let seals = Seals(shared)
        let rateLimiter = RateLimiter(
            rules: s.options.rateLimits, ipv6Prefix: s.options.ipv6ClientPrefix, stores: s.stores, logger: s.logger)
        let revoker = TokenRevoker(providers: s.providers, tokenOperations: tokenOperations, logger: s.logger)
        let pendingProfiles = PendingProfiles(stores: s.stores, logger: s.logger)
        let membership = SessionMembership(logger: s.logger)
        let accountResolution = AccountResolution(
            stores: s.stores, options: s.options, providers: s.providers, random: s.random, logger: s.logger,
            sessions: s.sessions)
        session = SessionRoutes(sessions: s.sessions, authCheck: check)
        forward = ForwardAuthRoutes(
            sessions: s.sessions, authCheck: check, options: s.options, providers: s.providers,
            returnToPolicy: seals.returnToPolicy, logger: s.logger)
        sessionManagement = SessionManagementRoutes(sessions: s.sessions, cookies: s.cookies)
        logout = LogoutRoutes(
            sessions: s.sessions, flows: s.stores.flows, providers: s.providers, options: s.options, clock: s.clock,
            cookies: s.cookies, returnToPolicy: seals.returnToPolicy, providerLogout: seals.providerLogout,
            logger: s.logger)
        login = LoginRoutes(
            sessions: s.sessions, providers: s.providers, options: s.options, signIn: signIn,
            flowCookie: seals.flowCookie, returnToPolicy: seals.returnToPolicy, rateLimiter: rateLimiter,
            pendingProfiles: pendingProfiles, traces: s.traces, logger: s.logger)
        callback = CallbackRoutes(
            sessions: s.sessions, stores: s.stores, providers: s.providers, options: s.options, signIn: signIn,
            clock: s.clock, flowCookie: seals.flowCookie, returnToPolicy: seals.returnToPolicy,
            providerLogout: seals.providerLogout, rateLimiter: rateLimiter, pendingProfiles: pendingProfiles,
            accountResolution: accountResolution, membership: membership, traces: s.traces, requestLog: s.requestLog,
            logger: s.logger)
        self.native = NativeRoutes(
            sessions: s.sessions, providers: s.providers, native: native, clock: s.clock, rateLimiter: rateLimiter,
            accountResolution: accountResolution, membership: membership, requestLog: s.requestLog, logger: s.logger)
        account = AccountRoutes(
            sessions: s.sessions, stores: s.stores, providers: s.providers, cookies: s.cookies,
            returnToPolicy: seals.returnToPolicy, revoker: revoker, logger: s.logger)
        providerEvents = ProviderEventRoutes(
            sessions: s.sessions, stores: s.stores, providers: s.providers, options: s.options, keySets: s.keySets,
            clock: s.clock, revoker: revoker, requestLog: s.requestLog, logger: s.logger)
        health = HealthRoute(stores: s.stores)
        passkeys = PasskeyRoutes(
            sessions: s.sessions, providers: s.providers, options: s.options, stores: s.stores,
            seal: s.keyring.flatMap { try? PasskeyCeremonySeal(keyring: $0, random: s.random) },
            rateLimiter: rateLimiter, clock: s.clock, random: s.random, logger: s.logger)
    }

    /// The browser-facing seals and policies: the flow cookie, provider logout's cookie and state, `return_to`.
    private struct Seals {
        /// Seals flows into flow cookies; `nil` when `server.secret` (or a previous secret) is too short to key it.
        let flowCookie: ServerFlowCookies?
        /// The id_token hint cookie and logout state of provider logout; `nil` when the secrets cannot key it.
        let providerLogout: ProviderLogout?
        let returnToPolicy: ReturnToPolicy

        init(_ s: Shared) {
            let random = s.random
            flowCookie = s.keyring.flatMap { try? FlowRecordSeal(keyring: $0, random: random) }.map {
                ServerFlowCookies(seal: $0, policy: s.cookies)
            }
            providerLogout = s.keyring.flatMap { try? $0.cipher(label: ProviderLogout.label, random: random) }.map {
                ProviderLogout(cipher: $0, policy: s.cookies, pathPrefix: s.options.pathPrefix)
            }
            returnToPolicy = ReturnToPolicy(allowed: s.options.allowedReturnTo)
        }
    }
}
