public import AuthFlowHTTP
public import AuthFlowJOSE
import Foundation

/// The thin async driver of ``OAuthFlow``: performs its actions with an HTTP client, a spent-state set
/// (``FlowStore``), per-provider JWKS caches, a clock and a random source.
///
/// A start stores nothing: the caller seals ``SignInStart/record`` into a flow cookie (``FlowRecordSeal``)
/// and opens it again at the callback.
///
/// ```swift
/// let signIn = SignIn(providers: try ProviderRegistry.standard.resolve(configuration),
///                     httpClient: CurlHTTPClient(), flowStore: InMemoryFlowStore(clock: SystemClock()))
/// let start = try await signIn.begin(provider: "google", returnTo: "/", browserBinding: signIn.newBrowserBinding())
/// let cookie = try seal.seal(start.record, cookieName: name)   // Set-Cookie, then redirect to start.redirectURL
/// // … at the callback:
/// let result = try await signIn.complete(provider: "google", method: .get, parameters: query,
///                                        flowRecord: seal.open(cookie, cookieName: name, provider: "google"))
/// ```
public final class SignIn: Sendable {
    /// The providers this driver signs in with, by name.
    public let providers: [String: ResolvedProvider]
    /// The flow tunables.
    public let options: OAuthFlow.Options

    private let httpClient: any HTTPClient
    private let flowStore: any FlowStore
    private let clock: any WallClock
    private let random: any SecureRandom
    private let keyCaches: ProviderKeySets
    private let observer: any ProviderObserver

    /// Creates a driver; one JWKS cache per OpenID Connect provider, fetched through `httpClient`.
    ///
    /// Pass `keySets` to share the caches with ``TokenOperations`` or a notification endpoint; by default
    /// the driver makes its own. `observer` hears of every token and userinfo request (status and duration)
    /// and, for caches the driver makes itself, of JWKS fetches.
    public init(
        providers: [ResolvedProvider], httpClient: any HTTPClient, flowStore: any FlowStore,
        clock: any WallClock = SystemClock(), random: any SecureRandom = SystemRandom(),
        options: OAuthFlow.Options = .init(), keySets: ProviderKeySets? = nil,
        observer: any ProviderObserver = NoProviderObserver()
    ) {
        self.observer = observer
        var byName: [String: ResolvedProvider] = [:]
        for provider in providers { byName[provider.name] = provider }
        self.providers = byName
        self.options = options
        self.httpClient = httpClient
        self.flowStore = flowStore
        self.clock = clock
        self.random = random
        self.keyCaches =
            keySets
            ?? ProviderKeySets(providers: providers, httpClient: httpClient, clock: clock, observer: observer)
    }

    /// A fresh browser-binding value (32 random bytes, base64url) for `begin`.
    public func newBrowserBinding() -> String {
        Base64URL.encode(random.bytes(32))
    }

    /// Begins a sign-in: returns the provider URL to redirect to and the flow record to seal into the
    /// browser's flow cookie. Stores nothing.
    ///
    /// - Parameters:
    ///   - name: the configured provider name.
    ///   - returnTo: where to send the browser afterwards (validate it against your allow-list first).
    ///   - intent: login, register or link.
    ///   - browserBinding: a random value identifying this browser (its digest goes into the record).
    /// - Throws: ``SignInError`` with `unknown_provider` or `invalid_request`.
    public func begin(
        provider name: String, returnTo: String?, intent: SignInIntent = .login, browserBinding: String
    ) async throws(SignInError) -> SignInStart {
        guard let provider = providers[name] else { throw Self.unknownProvider(name) }
        var flow = OAuthFlow(provider: provider, options: options)
        let now = clock.now()
        let action = flow.start(
            returnTo: returnTo, intent: intent, browserBinding: browserBinding,
            secrets: FlowSecrets.generate(random: random), now: now)
        switch action {
        case .redirect(let redirect):
            return SignInStart(
                redirectURL: redirect.url, record: redirect.record, expiresAt: now.addingTimeInterval(redirect.ttl),
                trace: flow.trace)
        case .fail(let error):
            throw error
        default:
            throw SignInError(.unexpectedEvent, "the flow did not answer start with a redirect", provider: name)
        }
    }

    /// Completes a sign-in from the provider's callback.
    ///
    /// - Parameters:
    ///   - name: the configured provider name (from the callback URL).
    ///   - method: the callback's HTTP method.
    ///   - parameters: the query (GET) or form body (POST) parameters.
    ///   - flowRecord: the record opened from the browser's flow cookie for this callback's state, or `nil`
    ///     when it sent none that opened. The state is marked spent only when it matches.
    ///   - onUnverifiedProfile: called with Apple's first-login name before the code exchange, so the
    ///     application can store it before anything else can fail. If it throws, the sign-in fails with
    ///     `unverified_profile_not_stored`.
    /// - Returns: the verified identity, tokens, return path, intent, unverified profile and trace.
    /// - Throws: ``SignInError`` (see ``SignInError/Code-swift.struct``).
    public func complete(
        provider name: String, method: CallbackMethod, parameters: CallbackParameters, flowRecord: FlowRecord?,
        onUnverifiedProfile: @Sendable (UnverifiedProfile) async throws -> Void = { _ in }
    ) async throws(SignInError) -> SignInResult {
        guard let provider = providers[name] else { throw Self.unknownProvider(name) }
        var flow = OAuthFlow(provider: provider, options: options)
        var action = flow.callbackReceived(
            method: method, parameters: parameters, flowRecord: flowRecord, now: clock.now())
        // Each action moves the flow forward; a sign-in needs at most six, so the bound is generous.
        for _ in 0..<16 {
            switch action {
            case .markStateSpent(let state, let until):
                do throws(FlowStoreError) {
                    let firstUse = try await flowStore.markSpent(state: state, until: until)
                    action = flow.stateSpent(firstUse, now: clock.now())
                } catch {
                    action = flow.requestFailed(
                        SignInError(
                            .flowStoreUnavailable, "expected the flow store to answer, found \(error.code.rawValue)"),
                        now: clock.now())
                }
            case .exchangeCode(let exchange):
                if let profile = exchange.unverifiedProfile {
                    do {
                        try await onUnverifiedProfile(profile)
                    } catch {
                        action = flow.requestFailed(
                            SignInError(
                                .unverifiedProfileNotStored,
                                "expected the application to store the first-login profile, found it failed"),
                            now: clock.now())
                        continue
                    }
                }
                action = await send(exchange.request, endpoint: .token, provider: name, flow: &flow) {
                    flow, response, now in
                    flow.tokenResponseReceived(response, now: now)
                }
            case .fetchJWKS(let fetch):
                action = await keys(fetch, provider: provider, flow: &flow)
            case .fetchUserinfo(let request):
                action = await send(request, endpoint: .userinfo, provider: name, flow: &flow) { flow, response, now in
                    flow.userinfoResponseReceived(response, now: now)
                }
            case .complete(let result):
                return result
            case .fail(let error):
                throw error
            case .redirect:
                throw SignInError(.unexpectedEvent, "the flow answered a callback with a redirect", provider: name)
            }
        }
        throw SignInError(.unexpectedEvent, "the flow did not finish within its step bound", provider: name)
    }

    private func send(
        _ request: HTTPClientRequest, endpoint: ProviderRequestEndpoint, provider: String, flow: inout OAuthFlow,
        next: (inout OAuthFlow, HTTPClientResponse, Date) -> OAuthFlow.Action
    ) async -> OAuthFlow.Action {
        let started = clock.now()
        do {
            let response = try await httpClient.send(request)
            let now = clock.now()
            observer.providerRequestFinished(
                provider: provider, endpoint: endpoint, status: response.status,
                seconds: now.timeIntervalSince(started))
            return next(&flow, response, now)
        } catch {
            let now = clock.now()
            observer.providerRequestFinished(
                provider: provider, endpoint: endpoint, status: nil, seconds: now.timeIntervalSince(started))
            return flow.requestFailed(Self.unreachable(error, endpoint: endpoint.rawValue), now: now)
        }
    }

    private func keys(_ fetch: OAuthFlow.JWKSFetch, provider: ResolvedProvider, flow: inout OAuthFlow) async
        -> OAuthFlow.Action
    {
        guard let cache = keyCaches[provider.name] else {
            return flow.requestFailed(
                SignInError(.jwksUnavailable, "expected a JWKS cache for an oidc provider, found none"),
                now: clock.now())
        }
        let before = await cache.fetchCount
        do throws(JOSEError) {
            // On an unknown kid the cache refetches, rate-limited per provider; the flow then verifies again.
            let keys =
                fetch.forceRefresh ? try await cache.keySet(afterUnknownKey: fetch.keyID) : try await cache.keySet()
            let fetched = await cache.fetchCount > before
            return flow.jwksReceived(keys, fetchedFromProvider: fetched, now: clock.now())
        } catch {
            return flow.requestFailed(
                SignInError(
                    .jwksUnavailable, "expected the provider's JWKS, found: \(error.message)", joseCode: error.code),
                now: clock.now())
        }
    }

    static func unreachable(_ error: any Error, endpoint: String) -> SignInError {
        let reason = (error as? HTTPClientError).map { "\($0.code)" } ?? "a transport failure"
        return SignInError(.providerUnreachable, "expected a response from the \(endpoint) endpoint, found \(reason)")
    }

    static func unknownProvider(_ name: String) -> SignInError {
        SignInError(.unknownProvider, "expected a configured provider name, found one that is not configured")
    }
}
