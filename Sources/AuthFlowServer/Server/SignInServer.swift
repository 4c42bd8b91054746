public import AuthFlow
import Foundation

/// The sign-in server: every route of `authflow serve` as one framework-neutral handler.
///
/// Mount ``handle(_:)`` in any Swift backend (it takes and returns plain request/response values), or
/// run it on the project's `HTTPServer`:
///
/// ```swift
/// let server = try SignInServer(configuration: configuration, registry: .standard,
///                               stores: .memory(clock: SystemClock()), httpClient: CurlHTTPClient())
/// let http = HTTPServer(configuration: .init(port: 8080), signIn: server)
/// _ = try http.start()
/// ```
///
/// Routes (docs/server.md, "Routes"): `GET /auth/{provider}/login|register|link`, `GET|POST /auth/{provider}/callback`,
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
    package var providers: [String: ResolvedProvider] { context.providers.byName }
    /// Provider names in configuration order.
    public var providerNames: [String] { context.providers.names }
    /// The server's settings.
    public var options: Options { context.options }
    /// What the route handlers share: stores, cookies, seals, key sets, logger, metrics, sessions.
    let context: ServerContext

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
    public convenience init(
        options: Options, providers: [ResolvedProvider], stores: Stores, httpClient: any HTTPClient,
        clock: any WallClock = SystemClock(), random: any SecureRandom = SystemRandom(),
        logger: any ServerLogger = SilentLogger()
    ) {
        self.init(
            options: options, providers: providers, stores: stores, httpClient: httpClient, clock: clock,
            random: random, logger: logger, metrics: nil)
    }

    /// ``init(options:providers:stores:httpClient:clock:random:logger:)`` that also counts requests, sign-ins
    /// and provider calls in `metrics` (served with ``metricsResponse(_:)`` on a listener of its own), and, with a
    /// `tracer`, records each request and provider call as OpenTelemetry spans (docs/tracing.md).
    package init(
        options: Options, providers: [ResolvedProvider], stores: Stores, httpClient: any HTTPClient,
        clock: any WallClock = SystemClock(), random: any SecureRandom = SystemRandom(),
        logger: any ServerLogger = SilentLogger(), metrics: ServerMetrics?, tracer: Tracer? = nil
    ) {
        self.context = ServerContext(
            options: options, providers: providers, stores: stores, httpClient: httpClient, clock: clock,
            random: random, logger: logger, metrics: metrics, tracer: tracer)
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
}
