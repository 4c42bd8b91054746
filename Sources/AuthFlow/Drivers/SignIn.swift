public import AuthFlowHTTP
public import AuthFlowJOSE
import Foundation

/// The sign-in driver: runs an authorization-code sign-in (the project's pure flow state machine) with an
/// HTTP client, a spent-state set (`FlowStore`), per-provider JWKS caches, a clock and a random source.
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
    package let providers: [String: ResolvedProvider]
    /// The flow tunables.
    package let options: Options

    private let transport: ProviderTransport
    private let flowStore: any FlowStore
    private let clock: any WallClock
    private let random: any SecureRandom
    private let keyCaches: ProviderKeySets

    /// Creates a driver; one JWKS cache per OpenID Connect provider, fetched through `httpClient`.
    public convenience init(
        providers: [ResolvedProvider], httpClient: any HTTPClient, flowStore: any FlowStore,
        clock: any WallClock = SystemClock(), random: any SecureRandom = SystemRandom(), options: Options = .init()
    ) {
        self.init(
            providers: providers, httpClient: httpClient, flowStore: flowStore, clock: clock, random: random,
            options: options, observer: NoProviderObserver())
    }

    /// Creates a driver whose `observer` hears of every token and userinfo request (status and duration)
    /// and, for caches the driver makes itself, of JWKS fetches: the server's metrics. Pass `keySets` to share
    /// the caches with ``TokenOperations`` or a notification endpoint; by default the driver makes its own.
    package init(
        providers: [ResolvedProvider], httpClient: any HTTPClient, flowStore: any FlowStore,
        clock: any WallClock = SystemClock(), random: any SecureRandom = SystemRandom(),
        options: Options = .init(), keySets: ProviderKeySets? = nil, observer: any ProviderObserver
    ) {
        self.transport = ProviderTransport(
            httpClient: httpClient, clock: clock, observer: observer, random: random, nonces: DPoPNonces())
        var byName: [String: ResolvedProvider] = [:]
        for provider in providers { byName[provider.name] = provider }
        self.providers = byName
        self.options = options
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
    /// browser's flow cookie. Stores nothing. With `par` in effect for the provider, the authorization request
    /// is first pushed to its pushed authorization request endpoint (RFC 9126), and the URL carries only
    /// `client_id` and the `request_uri` it answered.
    ///
    /// - Parameters:
    ///   - name: the configured provider name.
    ///   - returnTo: where to send the browser afterwards (validate it against your allow-list first).
    ///   - intent: login, register or link.
    ///   - browserBinding: a random value identifying this browser (its digest goes into the record).
    /// - Throws: ``SignInError`` with `unknown_provider` or `invalid_request`; with `par` in effect, also
    ///   `provider_unreachable`, `client_authentication_failed` or `pushed_authorization_error`.
    public func begin(
        provider name: String, returnTo: String?, intent: SignInIntent = .login, browserBinding: String
    ) async throws(SignInError) -> SignInStart {
        try await begin(provider: name, returnTo: returnTo, intent: intent, browserBinding: browserBinding, stepUp: nil)
    }

    /// ``begin(provider:returnTo:intent:browserBinding:)`` asking for `max_age` and `acr_values` (sent to the
    /// provider, sealed in the record, and checked against the id_token at the callback).
    package func begin(
        provider name: String, returnTo: String?, intent: SignInIntent = .login, browserBinding: String,
        stepUp: StepUp?
    ) async throws(SignInError) -> SignInStart {
        guard let provider = providers[name] else { throw Self.unknownProvider(name) }
        var flow = OAuthFlow(provider: provider, options: options)
        let now = clock.now()
        let redirect: OAuthFlow.AuthorizationRedirect
        switch try flow.begin(
            returnTo: returnTo, intent: intent, browserBinding: browserBinding, secrets: try secrets(for: provider),
            now: now, stepUp: stepUp)
        {
        case .redirect(let value):
            redirect = value
        case .pushAuthorizationRequest(let request):
            // RFC 9126: the request goes to the provider first; the browser carries only its request_uri.
            let response = try await send(request, endpoint: .pushedAuthorization, provider: name, flow: &flow)
            redirect = try flow.pushedAuthorizationResponseReceived(response, now: clock.now())
        }
        return SignInStart(
            redirectURL: redirect.url, record: redirect.record, expiresAt: now.addingTimeInterval(redirect.ttl),
            trace: flow.trace)
    }

    /// Whether ``begin(provider:returnTo:intent:browserBinding:stepUp:)`` of provider `name` needs no round trip
    /// (no pushed authorization request), so ``beginAtOnce(provider:returnTo:intent:browserBinding:stepUp:)`` can
    /// start it; `false` for an unknown provider.
    package func beginsAtOnce(provider name: String) -> Bool {
        guard let provider = providers[name] else { return false }
        return provider.pushedAuthorizationEndpoint == nil
    }

    /// ``begin(provider:returnTo:intent:browserBinding:stepUp:)`` without waiting, for a provider that
    /// ``beginsAtOnce(provider:)``: the same start and the same errors.
    /// - Throws: ``SignInError`` as `begin` does; `invalid_request` for a provider with `par` in effect.
    package func beginAtOnce(
        provider name: String, returnTo: String?, intent: SignInIntent, browserBinding: String, stepUp: StepUp?
    ) throws(SignInError) -> SignInStart {
        guard let provider = providers[name] else { throw Self.unknownProvider(name) }
        var flow = OAuthFlow(provider: provider, options: options)
        let now = clock.now()
        let redirect = try flow.start(
            returnTo: returnTo, intent: intent, browserBinding: browserBinding, secrets: try secrets(for: provider),
            now: now, stepUp: stepUp)
        return SignInStart(
            redirectURL: redirect.url, record: redirect.record, expiresAt: now.addingTimeInterval(redirect.ttl),
            trace: flow.trace)
    }

    /// A start's fresh secrets: state, nonce, PKCE verifier and, with DPoP, the sign-in's key.
    private func secrets(for provider: ResolvedProvider) throws(SignInError) -> FlowSecrets {
        var secrets = FlowSecrets.generate(random: random)
        secrets.dpopKey = try Self.dpopKey(for: provider)
        return secrets
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
    /// - Throws: ``SignInError`` (see ``SignInError/Code``).
    public func complete(
        provider name: String, method: CallbackMethod, parameters: CallbackParameters, flowRecord: FlowRecord?,
        onUnverifiedProfile: @Sendable (UnverifiedProfile) async throws -> Void = { _ in }
    ) async throws(SignInError) -> SignInResult {
        guard let provider = providers[name] else { throw Self.unknownProvider(name) }
        var flow = OAuthFlow(provider: provider, options: options)
        let spend: (state: String, until: Date)
        switch flow.callbackReceived(method: method, parameters: parameters, flowRecord: flowRecord, now: clock.now()) {
        case .markStateSpent(let state, let until): spend = (state, until)
        case .fail(let error): throw error
        }
        let firstUse: Bool
        do throws(FlowStoreError) {
            firstUse = try await flowStore.markSpent(state: spend.state, until: spend.until)
        } catch {
            throw flow.requestFailed(
                SignInError(.flowStoreUnavailable, "expected the flow store to answer, found \(error.code.rawValue)"),
                now: clock.now())
        }
        let exchange: OAuthFlow.TokenExchange
        switch flow.stateSpent(firstUse, now: clock.now()) {
        case .exchangeCode(let value): exchange = value
        case .fail(let error): throw error
        }
        if let profile = exchange.unverifiedProfile {
            do {
                try await onUnverifiedProfile(profile)
            } catch {
                throw flow.requestFailed(
                    SignInError(
                        .unverifiedProfileNotStored,
                        "expected the application to store the first-login profile, found it failed"),
                    now: clock.now())
            }
        }
        let dpopKey = flowRecord?.dpopKey
        let clock = self.clock
        let tokenResponse = try await send(
            exchange.request, endpoint: .token, provider: name, flow: &flow, dpopKey: dpopKey,
            renew: { request throws(SignInError) in try provider.withFreshClientAssertion(request, now: clock.now()) })
        var next: OAuthFlow.IdentityAction
        switch flow.tokenResponseReceived(tokenResponse, now: clock.now()) {
        case .verifyIDToken(let verification):
            // The one verification path: the cache refetches once, rate-limited, on an unknown kid.
            let outcome = await keyCaches.verification(
                of: verification.idToken, provider: name, with: verification.verifier)
            next = flow.idTokenVerified(outcome, now: clock.now())
        case .fetchUserinfo(let request): next = .fetchUserinfo(request)
        case .fail(let error): throw error
        }
        // The flow asks for each of the plugin's profile resources once, so this ends.
        while true {
            switch next {
            case .fetchUserinfo(let request):
                let response = try await send(
                    request, endpoint: .userinfo, provider: name, flow: &flow, dpopKey: dpopKey)
                next = flow.userinfoResponseReceived(response, now: clock.now())
            case .complete(let result): return result
            case .fail(let error): throw error
            }
        }
    }

    /// Sends a provider request; a transport failure ends the flow.
    private func send(
        _ request: HTTPClientRequest, endpoint: ProviderRequestEndpoint, provider: String, flow: inout OAuthFlow,
        dpopKey: JWK? = nil, renew: ((HTTPClientRequest) throws(SignInError) -> HTTPClientRequest)? = nil
    ) async throws(SignInError) -> HTTPClientResponse {
        do throws(SignInError) {
            return try await transport.send(
                request, endpoint: endpoint, provider: provider, dpopKey: dpopKey, renew: renew)
        } catch {
            throw flow.requestFailed(error, now: clock.now())
        }
    }

    /// A fresh key for the grant's DPoP proofs (RFC 9449) when `provider` binds its tokens, else `nil`.
    ///
    /// - Throws: ``SignInError`` `invalid_request` when OpenSSL cannot generate a key.
    static func dpopKey(for provider: ResolvedProvider) throws(SignInError) -> JWK? {
        guard let algorithm = provider.dpopAlgorithm else { return nil }
        do throws(JOSEError) {
            return algorithm == .edDSA ? try JWK.generateEd25519() : try JWK.generateP256()
        } catch {
            throw SignInError(
                .invalidRequest, "expected a fresh DPoP key, found \(error.code)", provider: provider.name)
        }
    }

    static func unknownProvider(_ name: String) -> SignInError {
        SignInError(.unknownProvider, "expected a configured provider name, found one that is not configured")
    }
}
