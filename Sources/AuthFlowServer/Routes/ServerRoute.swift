import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import Foundation

/// A route handler of ``SignInServer``: a small value over the server's one ``ServerContext``. The router
/// (``Router``) makes one per request and calls its route; the accessors below name the shared parts.
protocol ServerRoute: Sendable {
    /// The server's shared state.
    var context: ServerContext { get }
}

extension ServerRoute {
    var providers: [String: ResolvedProvider] { context.providers }
    var providerNames: [String] { context.providerNames }
    var options: SignInServer.Options { context.options }
    var signIn: SignIn { context.signIn }
    var stores: SignInServer.Stores { context.stores }
    var clock: any WallClock { context.clock }
    var random: BufferedRandom { context.random }
    var logger: any ServerLogger { context.logger }
    var cookies: CookiePolicy { context.cookies }
    var flowCookie: FlowCookie? { context.flowCookie }
    var returnToPolicy: ReturnToPolicy { context.returnToPolicy }
    var keySets: ProviderKeySets { context.keySets }
    var tokenOperations: TokenOperations { context.tokenOperations }
    var traces: TraceLog { context.traces }
    var metrics: ServerMetrics? { context.metrics }
    var sessions: SessionService { context.sessions }
    var sessionCache: SessionCache { context.sessions.cache }
    var native: NativeSignIn? { context.native }
    var routePrefix: RoutePrefix { context.routePrefix }
    var providerLogout: ProviderLogout? { context.providerLogout }

    /// The provider called `name`.
    ///
    /// - Throws: ``ServerError`` `unknown_provider` (400).
    func provider(_ name: String) throws(ServerError) -> ResolvedProvider {
        guard let provider = providers[name] else { throw SignInServer.unknownProvider }
        return provider
    }

    /// Checks that a provider called `name` is configured, without copying its settings out.
    ///
    /// - Throws: ``ServerError`` `unknown_provider` (400).
    func requireProvider(_ name: String) throws(ServerError) {
        guard context.providers.index(forKey: name) != nil else { throw SignInServer.unknownProvider }
    }

    /// Runs a store operation, mapping `identity_already_linked` to `account_exists` (403) and every other
    /// store failure to `store_unavailable` (503).
    func storing<T: Sendable>(
        _ doing: String, store: String = "accounts", _ operation: () async throws(StoreError) -> T
    ) async throws(ServerError) -> T {
        do throws(StoreError) {
            return try await operation()
        } catch {
            if error.code == .identityAlreadyLinked { throw SignInServer.accountExists(nil) }
            throw ServerError(error, while: doing, store: store)
        }
    }

    /// The session of `request` (see ``SessionService/current(_:cached:)``).
    func currentSession(_ request: HTTPServerRequest, cached: Bool = false) async throws(ServerError)
        -> CurrentSession?
    {
        try await sessions.current(request, cached: cached)
    }

    /// The session of `request`; ``ServerError`` `not_signed_in` (401) without one.
    func requireSession(_ request: HTTPServerRequest, cached: Bool = false) async throws(ServerError)
        -> CurrentSession
    {
        try await sessions.require(request, cached: cached)
    }

    /// Notes that the session `id` changes (see ``SessionService/noteChanged(session:)``).
    func noteChanged(session id: String) { sessions.noteChanged(session: id) }
    /// Notes that user `user`, or its sessions, change.
    func noteChanged(user: UserID) { sessions.noteChanged(user: user) }
    /// Notes that identity `identity`, or the sessions signed in with it, change.
    func noteChanged(identity: IdentityKey) { sessions.noteChanged(identity: identity) }

    /// Starts a new cookie session for `identity` and returns its id and cookie
    /// (``SessionService/issueCookieSession(for:providerSessionID:groups:roles:tenant:agent:)``).
    func createSession(
        for identity: LinkedIdentity, providerSessionID: String? = nil, groups: [String] = [], roles: [String] = [],
        tenant: String? = nil, agent: String? = nil
    ) async throws(ServerError) -> (id: String, cookie: String) {
        try await sessions.issueCookieSession(
            for: identity, providerSessionID: providerSessionID, groups: groups, roles: roles, tenant: tenant,
            agent: agent)
    }
}
