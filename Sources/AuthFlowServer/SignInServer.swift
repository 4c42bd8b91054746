public import AuthFlow
public import AuthFlowHTTP
public import AuthFlowJOSE
import Foundation

/// The sign-in server: every route of `authflow serve` as one framework-neutral handler.
///
/// Mount ``handle(_:)`` in any Swift backend (it takes and returns plain request/response values), or
/// run it on the project's `HTTPServer`:
///
/// ```swift
/// let server = try SignInServer(configuration: configuration, registry: .standard,
///                               stores: .memory(clock: SystemClock()), httpClient: CurlHTTPClient())
/// let http = HTTPServer(configuration: .init(port: 8080), immediate: server.handleAtOnce) { await server.handle($0) }
/// _ = try http.start()
/// ```
///
/// Routes (DESIGN §3): `GET /auth/{provider}/login|register|link`, `GET|POST /auth/{provider}/callback`,
/// `GET /auth/session`, `GET /auth/check`, `POST /auth/logout`, `GET /auth/sessions`,
/// `POST /auth/sessions/revoke`, `POST /auth/{provider}/disconnect`,
/// `POST /auth/account/delete`, `GET /healthz`, native-app sign-in (`POST /auth/{provider}/native/nonce`,
/// `POST /auth/{provider}/native`, `POST /auth/session/refresh`; bearer sessions are accepted wherever the
/// session cookie is), and the event endpoints provider plugins declare under
/// `/auth/{provider}/` (`ProviderEventEndpoint`: Apple's notifications, Facebook's data deletion,
/// Google RISC, OIDC back-channel logout). An app serves its own pages next to these with
/// ``signedInUser(_:)`` and ``respond(to:route:with:)``.
public final class SignInServer: Sendable {
    /// The configured providers, by name.
    public let providers: [String: ResolvedProvider]
    /// Provider names in configuration order.
    public let providerNames: [String]
    /// The server's settings.
    public let options: Options

    let signIn: SignIn
    let stores: Stores
    let httpClient: any HTTPClient
    let clock: any WallClock
    /// The injected randomness, drawn in chunks (see ``BufferedRandom``).
    let random: BufferedRandom
    /// The logger every event goes through: adds the request's id, route and provider (``RequestScopedLogger``).
    let logger: any ServerLogger
    /// The logger the server was given, for the request line, which ``finish(_:status:failure:started:)`` writes
    /// with the request's fields already in place.
    let baseLogger: any ServerLogger
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
    /// Sessions recently found valid (see ``Options/sessionCacheLifetime``).
    let sessionCache: SessionCache
    /// Native-app sign-in (`POST /auth/{provider}/native`); `nil` when `server.secret` is too short to seal nonces.
    let native: NativeSignIn?
    /// `server.path_prefix`: which paths are routed (see ``RoutePrefix``).
    let routePrefix: RoutePrefix
    /// The id_token hint cookie and logout state of provider logout; `nil` when the secrets cannot key it.
    let providerLogout: ProviderLogout?

    /// Creates a server over resolved providers.
    ///
    /// - Parameters:
    ///   - options: public URL, secret, return-to allow-list, session lifetime, sign-up rules.
    ///   - providers: the resolved providers (`ProviderRegistry.resolve(_:)`).
    ///   - stores: where flows, accounts and sessions are kept.
    ///   - httpClient: the client for token, userinfo, JWKS and revocation requests.
    ///   - clock: the time source (inject a `ManualClock` in tests).
    ///   - random: the randomness for bindings, states and session ids.
    ///   - logger: where events are reported (nothing by default); every event of a request carries its
    ///     `request_id`, `route` and `provider`.
    ///   - metrics: where requests, sign-ins and provider calls are counted (nothing by default); serve its
    ///     registry with ``metricsResponse(_:)`` on a listener of its own.
    public init(
        options: Options, providers: [ResolvedProvider], stores: Stores, httpClient: any HTTPClient,
        clock: any WallClock = SystemClock(), random: any SecureRandom = SystemRandom(),
        logger: any ServerLogger = SilentLogger(), metrics: ServerMetrics? = nil
    ) {
        let random = BufferedRandom(source: random)
        var byName: [String: ResolvedProvider] = [:]
        for provider in providers { byName[provider.name] = provider }
        let observer: any ProviderObserver = metrics ?? NoProviderObserver()
        let keySets = ProviderKeySets(providers: providers, httpClient: httpClient, clock: clock, observer: observer)
        self.providers = byName
        self.providerNames = providers.map(\.name)
        self.options = options
        self.signIn = SignIn(
            providers: providers, httpClient: httpClient, flowStore: stores.flows, clock: clock, random: random,
            options: options.flow, keySets: keySets, observer: observer)
        self.stores = stores
        self.httpClient = httpClient
        self.clock = clock
        self.random = random
        self.logger = RequestScopedLogger(base: logger)
        self.baseLogger = logger
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
            observer: observer, requestTimeout: Self.revocationTimeout)
        self.sessionCache = SessionCache(lifetime: options.sessionCacheLifetime)
        self.native = keyring.flatMap { try? NativeNonceSeal(keyring: $0, random: random) }.map {
            NativeSignIn(
                providers: providers, keySets: keySets, httpClient: httpClient, flowStore: stores.flows, nonces: $0,
                clock: clock, options: options.flow, observer: observer)
        }
        self.routePrefix = RoutePrefix(options.pathPrefix)
        self.providerLogout = keyring.flatMap { try? $0.cipher(label: ProviderLogout.label, random: random) }.map {
            ProviderLogout(cipher: $0, policy: cookies, pathPrefix: options.pathPrefix)
        }
    }

    /// Creates a server from a loaded configuration, resolving its providers with `registry` without any I/O,
    /// and takes the `server:` settings.
    ///
    /// Prefer ``init(resolving:registry:stores:httpClient:clock:random:logger:keepsTraces:)``, which also
    /// resolves `type: oidc` providers by discovery; this one refuses such a provider unless its endpoints are
    /// written out.
    ///
    /// - Throws: `ConfigurationError` when the providers do not resolve (a `type: oidc` provider that needs
    ///   discovery: `discovery_required`, naming the asynchronous entry), the `server:` section is
    ///   missing, or `server.secret` is missing or shorter than 32 bytes.
    public convenience init(
        configuration: Configuration, registry: ProviderRegistry, stores: Stores, httpClient: any HTTPClient,
        clock: any WallClock = SystemClock(), random: any SecureRandom = SystemRandom(),
        logger: any ServerLogger = SilentLogger(), keepsTraces: Bool = false
    ) throws(ConfigurationError) {
        var options = try Options(configuration: configuration)
        options.keepsTraces = keepsTraces
        let providers = try registry.resolve(configuration)
        self.init(
            options: options, providers: providers, stores: stores, httpClient: httpClient, clock: clock,
            random: random, logger: logger)
    }

    /// Creates a server from a loaded configuration: the documented entry. Resolves its providers with
    /// `registry` after each plugin's asynchronous preparation (`type: oidc` fetches its issuer's discovery
    /// document with `httpClient`, once per issuer; the fixed providers need no request), and takes the
    /// `server:` settings. Nothing is served until you mount ``handle(_:)``.
    ///
    /// - Throws: `ConfigurationError` listing every issue (a failed discovery is `discovery_failed` at the
    ///   provider's `issuer:`), when the `server:` section is missing, or `server.secret` is missing or
    ///   shorter than 32 bytes.
    public convenience init(
        resolving configuration: Configuration, registry: ProviderRegistry, stores: Stores,
        httpClient: any HTTPClient, clock: any WallClock = SystemClock(), random: any SecureRandom = SystemRandom(),
        logger: any ServerLogger = SilentLogger(), keepsTraces: Bool = false
    ) async throws(ConfigurationError) {
        var options = try Options(configuration: configuration)
        options.keepsTraces = keepsTraces
        let providers = try await registry.resolve(configuration, httpClient: httpClient)
        self.init(
            options: options, providers: providers, stores: stores, httpClient: httpClient, clock: clock,
            random: random, logger: logger)
    }

    /// Answers one request. Never throws: failures become `{"error", "message"}` responses (HTML when the
    /// client prefers it) with status 400, 401, 403, 404, 405, 429 (with `Retry-After`) or 503.
    ///
    /// Every response carries `X-Request-Id`; the request is counted in `metrics` and
    /// logged (`event: request`, with route template, status, duration and error code).
    public func handle(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        // The path is split once: the routing, the request's context and the session cache rule share it.
        let segments = routePrefix.routed(Self.segments(of: request.path))
        return await respond(to: request, segments: segments) { request throws(ServerError) in
            try await self.route(request, segments: segments)
        }
    }

    /// Answers `request` with `page` the way the server answers its own routes: a thrown ``ServerError``
    /// becomes the server's error response (JSON, or HTML when the client prefers it), and the response gets
    /// the server's security headers (`nosniff`, `DENY` framing, `same-origin` referrer, `no-store`) unless
    /// `page` set them, and `X-Request-Id`. The request is counted and logged like the server's own, and every
    /// event `page` logs through the server carries the request's id. `route` is the page's `route` label and
    /// log field (a fixed template of the app's, such as `/` or `/account`, never the request's own path: a
    /// label per path would grow without bound); without it, the server's template of the path, `other` for
    /// a path that is none of its routes.
    public func respond(
        to request: HTTPServerRequest, route: String? = nil,
        with page: (HTTPServerRequest) async throws(ServerError) -> HTTPServerResponse
    ) async -> HTTPServerResponse {
        await respond(
            to: request, segments: routePrefix.routed(Self.segments(of: request.path)), route: route, with: page)
    }

    /// ``respond(to:route:with:)`` for a request whose path is already split into `segments`.
    func respond(
        to request: HTTPServerRequest, segments: [String], route: String? = nil,
        with page: (HTTPServerRequest) async throws(ServerError) -> HTTPServerResponse
    ) async -> HTTPServerResponse {
        let started = clock.now()
        let context = requestContext(request, segments: segments, route: route)
        return await RequestContext.$current.withValue(context) {
            var response: HTTPServerResponse
            var failure: ServerError?
            do throws(ServerError) {
                response = try await page(request)
            } catch {
                failure = error
                response = ResponseFactory.error(error, accept: request.headers["Accept"])
                if let retryAfter = error.retryAfter { response.headers["Retry-After"] = String(retryAfter) }
            }
            complete(&response, of: request, segments: segments, context: context, failure: failure, started: started)
            return response
        }
    }

    /// What every answer gets once its route finished, in ``respond(to:segments:with:)`` and
    /// ``handleAtOnce(_:)`` alike: the security headers, `X-Request-Id`, and the request counted and logged.
    /// (A route that changes sessions had the session cache forget them already: ``changingSessions(_:)``.)
    private func complete(
        _ response: inout HTTPServerResponse, of request: HTTPServerRequest, segments: [String],
        context: RequestContext, failure: ServerError?, started: Date
    ) {
        // Room for the security headers and the request id, so adding them does not regrow the fields.
        response.headers.reserveCapacity(response.headers.count + ResponseFactory.securityHeaders.count + 1)
        ResponseFactory.secure(&response)
        response.headers[RequestID.header] = context.requestID
        finish(context, status: response.status, failure: failure, started: started)
    }

    /// Answers `request` at once, without waiting, when it can: a `GET` (or `HEAD`) of `/auth/check` whose
    /// session the session cache holds (``SignInServer/Options/sessionCacheLifetime``). Returns `nil` for any
    /// other request, which ``handle(_:)`` then answers. The answer, its headers, log line and metrics are
    /// those ``handle(_:)`` gives; pass it to `HTTPServer` as its immediate handler, so the server's most
    /// frequent request (nginx `auth_request` asks on every request it proxies) needs no task.
    public func handleAtOnce(_ request: HTTPServerRequest) -> HTTPServerResponse? {
        // A bearer is looked up (and refused beside a cookie) by `handle`.
        guard request.method == "GET" || request.method == "HEAD", request.path == routePrefix.checkPath,
            request.headers["Authorization"] == nil
        else { return nil }
        let started = clock.now()
        // A duplicated cookie is refused by `handle`, with its error; an unknown or stale session is looked up there.
        guard let id = (try? sessionCookieValue(request)) ?? nil,
            let session = sessionCache.session(id: id, now: started),
            // The cache holds both kinds: a session cookie opens only a cookie session, never a bearer one.
            session.record.kind == .cookie,
            // A query, or a user the access rules refuse, is answered by `handle` (its 400 or 403); a session
            // idle too long, or whose last use is due to be written, too.
            request.query.isEmpty, idleState(session.record, now: started) == .fresh,
            allowsAccess(session, narrowing: nil)
        else { return nil }
        let segments = Self.checkSegments
        let context = requestContext(request, segments: segments)
        return RequestContext.$current.withValue(context) {
            var response = checkResponse(session)
            complete(&response, of: request, segments: segments, context: context, failure: nil, started: started)
            return response
        }
    }

    /// The routed segments of `{prefix}/check`.
    static let checkSegments = ["auth", "check"]

    private func route(_ request: HTTPServerRequest, segments: [String]) async throws(ServerError)
        -> HTTPServerResponse
    {
        let method = request.method == "HEAD" ? "GET" : request.method
        // One or two methods, not a variadic list: no array is built for the check on every request.
        func only(_ allowed: String, or other: String? = nil) throws(ServerError) {
            guard method == allowed || (other != nil && method == other) else {
                let expected = other.map { "\(allowed) or \($0)" } ?? allowed
                throw ServerError(
                    .init(rawValue: "method_not_allowed"),
                    "expected \(expected), found \(request.method.prefix(16))", status: 405)
            }
        }
        // Matched on the segment count and strings: array patterns would build an array per case tried.
        let count = segments.count
        let first = count > 0 ? segments[0] : ""
        if count == 1, first == "healthz" {
            try only("GET")
            return await health()
        }
        if count == 2, first == "auth" {
            switch segments[1] {
            case "session":
                try only("GET")
                return try await sessionInfo(request)
            case "check":
                try only("GET")
                return try await check(request)
            case "logout":
                try only("POST")
                return try await changingSessions { () async throws(ServerError) in try await logout(request) }
            case "logged-out":
                try only("GET")
                return try loggedOut(request)
            case "sessions":
                try only("GET")
                return try await listSessions(request)
            default:
                break
            }
        }
        if count == 3, first == "auth", segments[1] == "session", segments[2] == "refresh" {
            try only("POST")
            return try await changingSessions { () async throws(ServerError) in try await refreshBearerSession(request)
            }
        }
        if count == 3, first == "auth", segments[1] == "sessions", segments[2] == "revoke" {
            try only("POST")
            return try await changingSessions { () async throws(ServerError) in try await revokeSession(request) }
        }
        if count == 3, first == "auth", segments[1] == "account", segments[2] == "delete" {
            try only("POST")
            return try await changingSessions { () async throws(ServerError) in try await deleteAccount(request) }
        }
        if count >= 3, first == "auth" {
            let name = segments[1]
            // The server's own routes come first: a plugin's event endpoint never shadows them.
            switch count == 3 ? segments[2] : "" {
            case "login", "register", "link":
                try only("GET")
                let intent = SignInIntent(rawValue: segments[2]) ?? .login
                return try await beginSignIn(request, provider: name, intent: intent)
            case "callback":
                try only("GET", or: "POST")
                return try await changingSessions { () async throws(ServerError) in
                    try await callback(request, provider: name)
                }
            case "disconnect":
                try only("POST")
                return try await changingSessions { () async throws(ServerError) in
                    try await disconnect(request, provider: name)
                }
            case "native":
                try only("POST")
                return try await changingSessions { () async throws(ServerError) in
                    try await nativeSignIn(request, provider: name)
                }
            case "" where count == 4 && segments[2] == "native" && segments[3] == "nonce":
                try only("POST")
                return try await nativeNonce(request, provider: name)
            default:
                if let (provider, endpoint, parameters) = try eventEndpoint(
                    provider: name, segments: Array(segments.dropFirst(2)), method: method)
                {
                    return try await changingSessions { () async throws(ServerError) in
                        try await providerEvent(request, provider: provider, endpoint: endpoint, parameters: parameters)
                    }
                }
            }
        }
        throw ServerError(
            .init(rawValue: "not_found"), "expected a sign-in server route, found none at this path", status: 404)
    }

    /// The provider called `name`.
    ///
    /// - Throws: ``ServerError`` `unknown_provider` (400).
    func provider(_ name: String) throws(ServerError) -> ResolvedProvider {
        guard let provider = providers[name] else { throw Self.unknownProvider }
        return provider
    }

    /// Checks that a provider called `name` is configured, without copying its settings out.
    ///
    /// - Throws: ``ServerError`` `unknown_provider` (400).
    func requireProvider(_ name: String) throws(ServerError) {
        guard providers.index(forKey: name) != nil else { throw Self.unknownProvider }
    }

    static let unknownProvider = ServerError(
        .unknownProvider, "expected a configured provider name, found one that is not configured", status: 400)

    /// A redirect to the public URL's `/` when `request` arrived under another host (e.g. the listen address
    /// `127.0.0.1` instead of `localhost`), since cookies and redirect URIs belong to the public URL; `nil`
    /// when it arrived under the public URL's host.
    public func publicOriginRedirect(_ request: HTTPServerRequest) -> HTTPServerResponse? {
        guard let host = request.headers["Host"]?.lowercased(),
            let publicOrigin = ReturnToPolicy.origin(of: options.publicURL),
            let scheme = publicOrigin.range(of: "://")
        else { return nil }
        // `ReturnToPolicy.origin` drops default ports, so compare the Host header the same way.
        let requested = ReturnToPolicy.origin(of: String(publicOrigin[..<scheme.upperBound]) + host)
        guard let requested, requested != publicOrigin else { return nil }
        return .redirect(to: options.publicURL + "/", status: 302)
    }

    static func segments(of path: String) -> [String] {
        // Segments are compared undecoded: provider names are `[a-z0-9_-]`, so an escaped name is not one.
        // Split on the contiguous UTF-8 bytes (`/` is ASCII) in one pass, without the leading empty segment of an
        // absolute path (so `""` has none and `/` one empty segment): walking Characters, or splitting into
        // subsequences first, costs more than the rest of a check.
        var path = path
        return path.withUTF8 { bytes -> [String] in
            guard !bytes.isEmpty else { return [] }
            var pieces: [String] = []
            pieces.reserveCapacity(4)
            var start = bytes[0] == UInt8(ascii: "/") ? 1 : 0
            for index in start..<bytes.count where bytes[index] == UInt8(ascii: "/") {
                pieces.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
                start = index + 1
            }
            pieces.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start...]), as: UTF8.self))
            return pieces
        }
    }
}
