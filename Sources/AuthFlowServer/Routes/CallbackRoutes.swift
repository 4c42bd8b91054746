import AuthFlow
import AuthFlowHTTP
import Foundation

/// `GET|POST /auth/{provider}/callback`: where the provider sends the browser back.
struct CallbackRoutes: SessionUsing {
    let sessions: SessionService
    let stores: SignInServer.Stores
    let providers: ProviderDirectory
    let options: SignInServer.Options
    let signIn: SignIn
    let clock: any WallClock
    let flowCookie: ServerFlowCookies?
    let returnToPolicy: ReturnToPolicy
    let providerLogout: ProviderLogout?
    let rateLimiter: RateLimiter
    let pendingProfiles: PendingProfiles
    let accountResolution: AccountResolution
    let membership: SessionMembership
    let traces: TraceLog
    let requestLog: RequestLog
    let logger: any ServerLogger

    /// Completes the sign-in, resolves the account, starts a fresh session, clears the flow's cookie and
    /// redirects (302 after GET, 303 after POST) to `return_to` (default `/`).
    ///
    /// The flow record comes from the browser's flow cookie for the callback's state; the state is marked
    /// spent only once that cookie has opened and matched, so a callback with someone else's state and no (or
    /// a wrong) cookie changes nothing. A POST arriving cross-site (`Sec-Fetch-Site: cross-site`) or without a
    /// valid flow cookie, and not yet bounced, gets the `FormPostBounce` page instead; nothing is spent until the
    /// re-POST. Rate-limited per client address (`server.rate_limits.callbacks`). The identity, its user and the
    /// browser's previous session are noted in `changes`.
    func callback(_ request: HTTPServerRequest, provider name: String, changes: SessionChangeLog)
        async throws(ServerError) -> HTTPServerResponse
    {
        let started = clock.now()
        let provider = try providers.provider(name)
        try await rateLimiter.check(request, kind: .callback)
        let method: CallbackMethod = request.method == "POST" ? .post : .get
        var fields = try Self.callbackFields(request, provider: name)
        let states = fields.filter { $0.0 == "state" }
        let state = states.count == 1 ? states[0].1 : ""
        let record = try flowCookie?.record(in: request, state: state, provider: name)
        if FormPostBounce.shouldBounce(request: request, fields: fields, hasFlowRecord: record != nil) {
            return bounce(provider: provider, fields: fields)
        }
        fields = FormPostBounce.withoutMarker(fields)
        // Only a provider that sends its profile once (Apple) parks one; the others never touch that store.
        let keepsProfile = provider.plugin.keepsUnverifiedProfile
        let pendingKey = keepsProfile ? record.map { PendingProfiles.key(provider: name, state: $0.state) } : nil
        let flow = Flow(
            provider: name, method: method, record: record, state: state, keepsProfile: keepsProfile,
            pendingKey: pendingKey, startTrace: options.keepsTraces ? traces.takeStart(state: state) : [],
            started: started)
        let result = try await complete(request, flow, parameters: CallbackParameters(fields))
        let identity = try await resolve(result, request: request, flow: flow, changes: changes)
        return try await signedIn(identity, result: result, request: request, flow: flow, changes: changes)
    }

    /// What one callback knows of its flow, passed between its steps.
    struct Flow: Sendable {
        let provider: String
        let method: CallbackMethod
        let record: FlowRecord?
        let state: String
        let keepsProfile: Bool
        let pendingKey: String?
        let startTrace: [TraceEvent]
        let started: Date
    }

    /// The callback's parameters: the query of a GET, the form of a POST (bounded by the kit's
    /// `FormPostBounce` limits).
    ///
    /// - Throws: ``ServerError`` `invalid_request` (400) for a body or a field count over the limits.
    static func callbackFields(_ request: HTTPServerRequest, provider name: String) throws(ServerError)
        -> [(String, String)]
    {
        do throws(BrowserBindingError) {
            return try FormPostBounce.callbackFields(request)
        } catch {
            var failure = ServerError(error)
            failure.provider = name
            throw failure
        }
    }
}
