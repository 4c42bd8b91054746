public import AuthFlowHTTP
public import AuthFlowJOSE
import Foundation

/// The thin async driver of ``OAuthFlow``: performs its actions with an HTTP client, a flow store,
/// per-provider JWKS caches, a clock and a random source.
///
/// ```swift
/// let signIn = SignIn(providers: try ProviderRegistry.standard.resolve(configuration),
///                     httpClient: CurlHTTPClient(), flowStore: InMemoryFlowStore(clock: SystemClock()))
/// let binding = signIn.newBrowserBinding()          // put it in a flow cookie
/// let start = try await signIn.begin(provider: "google", returnTo: "/", browserBinding: binding)
/// // … redirect to start.redirectURL; at the callback:
/// let result = try await signIn.complete(provider: "google", method: .get, parameters: query,
///                                        browserBinding: cookie) { profile in /* store Apple's name */ }
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

    /// Creates a driver; one JWKS cache per OpenID Connect provider, fetched through `httpClient`.
    ///
    /// Pass `keySets` to share the caches with ``TokenOperations`` or a notification endpoint; by default
    /// the driver makes its own.
    public init(
        providers: [ResolvedProvider], httpClient: any HTTPClient, flowStore: any FlowStore,
        clock: any WallClock = SystemClock(), random: any SecureRandom = SystemRandom(),
        options: OAuthFlow.Options = .init(), keySets: ProviderKeySets? = nil
    ) {
        var byName: [String: ResolvedProvider] = [:]
        for provider in providers { byName[provider.name] = provider }
        self.providers = byName
        self.options = options
        self.httpClient = httpClient
        self.flowStore = flowStore
        self.clock = clock
        self.random = random
        self.keyCaches = keySets ?? ProviderKeySets(providers: providers, httpClient: httpClient, clock: clock)
    }

    /// A fresh browser-binding value (32 random bytes, base64url) to set in a flow cookie before ``begin``.
    public func newBrowserBinding() -> String {
        Base64URL.encode(random.bytes(32))
    }

    /// Begins a sign-in: stores the flow record and returns the provider URL to redirect to.
    ///
    /// - Parameters:
    ///   - provider: the configured provider name.
    ///   - returnTo: where to send the browser afterwards (validate it against your allow-list first).
    ///   - intent: login, register or link.
    ///   - browserBinding: a secret value this browser will present again at the callback.
    /// - Throws: ``SignInError`` with `unknown_provider`, `invalid_request` or `flow_store_unavailable`.
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
            do throws(FlowStoreError) {
                try await flowStore.put(redirect.record, ttl: redirect.ttl)
            } catch {
                throw SignInError(
                    .flowStoreUnavailable, "expected the flow store to keep the sign-in, found \(error.code.rawValue)",
                    provider: name)
            }
            return SignInStart(
                redirectURL: redirect.url, state: redirect.record.state,
                expiresAt: now.addingTimeInterval(redirect.ttl),
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
    ///   - provider: the configured provider name (from the callback URL).
    ///   - method: the callback's HTTP method.
    ///   - parameters: the query (GET) or form body (POST) parameters.
    ///   - browserBinding: the binding value the browser presented, or `nil` when it sent none.
    ///   - onUnverifiedProfile: called with Apple's first-login name before the code exchange, so the
    ///     application can store it before anything else can fail. If it throws, the sign-in fails with
    ///     `unverified_profile_not_stored`.
    /// - Returns: the verified identity, tokens, return path, intent, unverified profile and trace.
    /// - Throws: ``SignInError`` (see ``SignInError/Code-swift.struct``).
    public func complete(
        provider name: String, method: CallbackMethod, parameters: CallbackParameters, browserBinding: String?,
        onUnverifiedProfile: @Sendable (UnverifiedProfile) async throws -> Void = { _ in }
    ) async throws(SignInError) -> SignInResult {
        guard let provider = providers[name] else { throw Self.unknownProvider(name) }
        var flow = OAuthFlow(provider: provider, options: options)
        var action = flow.callbackReceived(
            method: method, parameters: parameters, browserBinding: browserBinding, now: clock.now())
        // Each action moves the flow forward; a sign-in needs at most six, so the bound is generous.
        for _ in 0..<16 {
            switch action {
            case .takeFlowRecord(let state):
                do throws(FlowStoreError) {
                    let record = try await flowStore.take(state: state)
                    action = flow.flowRecordTaken(record, now: clock.now())
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
                action = await send(exchange.request, endpoint: "token", flow: &flow) { flow, response, now in
                    flow.tokenResponseReceived(response, now: now)
                }
            case .fetchJWKS(let fetch):
                action = await keys(fetch, provider: provider, flow: &flow)
            case .fetchUserinfo(let request):
                action = await send(request, endpoint: "userinfo", flow: &flow) { flow, response, now in
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
        _ request: HTTPClientRequest, endpoint: String, flow: inout OAuthFlow,
        next: (inout OAuthFlow, HTTPClientResponse, Date) -> OAuthFlow.Action
    ) async -> OAuthFlow.Action {
        do {
            let response = try await httpClient.send(request)
            return next(&flow, response, clock.now())
        } catch {
            return flow.requestFailed(Self.unreachable(error, endpoint: endpoint), now: clock.now())
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
