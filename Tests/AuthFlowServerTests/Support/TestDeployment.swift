import AuthFlow
import AuthFlowBrowserTestSupport
import AuthFlowDemo
import AuthFlowDeployment
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowProviders
import AuthFlowSandbox
import AuthFlowTestSupport
import Foundation
import Synchronization
import Testing

@testable import AuthFlowServer

/// RSA signing keys generated once for every sandbox the tests start (key generation is slow).
enum SharedKeys {
    static let signing: [SandboxProvider: JWK] = {
        var keys: [SandboxProvider: JWK] = [:]
        for provider in SandboxProvider.allCases where provider.issuesIDTokens {
            keys[provider] = try? JWK.generateRSA(bits: 2048, keyID: "test-\(provider.rawValue)")
        }
        return keys
    }()
}

/// One sandbox identity provider and one sign-in server, each on its own loopback listener: the app at
/// `http://localhost:PORT`, the sandbox at `http://127.0.0.1:PORT2` (different sites, as in production).
final class TestDeployment: Sendable {
    let sandbox: SandboxIdentityProvider
    let server: SignInServer
    let stores: SignInServer.Stores
    let clock: ShiftableClock
    let appURL: String
    let configuration: Configuration
    private let http: HTTPServer

    struct Settings {
        var providers = ["apple", "google", "facebook", "x"]
        /// `native_clients` per provider name.
        var nativeClients: [String: [String]] = [:]
        /// `server.native_session_ttl` in seconds.
        var nativeSessionTTL: Double = 30 * 86_400
        /// `server.native_session_max_age` in seconds (the default when `nil`).
        var nativeSessionMaxAge: Double? = nil
        /// `server.rate_limits` (`nil`: off).
        var rateLimits: RateLimitSettings? = RateLimitSettings()
        var signup = true
        var linkByVerifiedEmail: EmailLinkPolicy = .off
        var sessionTTL: Double = 8 * 3600
        var allowedReturnTo = ["/"]
        var stores: ((any WallClock) throws -> SignInServer.Stores)? = nil
        /// Puts a `FaultyProvider` between the server and the sandbox (the sandbox then shares the server's
        /// clock, so shifting it keeps tokens fresh).
        var faults: FaultyProvider? = nil
        /// The server's HTTP client timeout in seconds (the client's default, 10, when `nil`).
        var httpTimeout: Double? = nil
        /// A PEM file of the only authorities the server's HTTP client trusts (the system's when `nil`).
        var caBundlePath: String? = nil
        /// Where the server counts requests, sign-ins and provider calls (nothing when `nil`).
        var metrics: ServerMetrics? = nil
        /// How long the session cache may answer (the server's default when `nil`).
        var sessionCacheLifetime: Double? = nil
        /// Rewrites the sandbox-attached configuration and picks the registry (e.g. a `type: oidc` provider).
        var adapt: ((Configuration, SandboxIdentityProvider) throws -> (Configuration, ProviderRegistry))? = nil
        /// `server.path_prefix`.
        var pathPrefix = "/auth"
        /// `server.access`.
        var access = AccessRules()
        /// `server.session_idle_timeout` in seconds (`nil`: off).
        var sessionIdleTimeout: Double? = nil
        /// Provider options (`tenant`, `allowed_tenants`, …) per provider name.
        var options: [String: ProviderOptions] = [:]
        /// Creates the server with `SignInServer(resolving:…)`, which discovers `type: oidc` issuers.
        var resolvesWithDiscovery = false
        /// Runs the sandbox's OpenID issuer in its strict FAPI 2.0 mode (`SandboxConfiguration.fapi2`).
        var fapi2 = false
        /// The audit trail the server records into (`server.audit_log`; none when `nil`).
        var audit: AuditTrail? = nil
    }

    private init(
        sandbox: SandboxIdentityProvider, server: SignInServer, stores: SignInServer.Stores, clock: ShiftableClock,
        appURL: String, configuration: Configuration, http: HTTPServer
    ) {
        self.sandbox = sandbox
        self.server = server
        self.stores = stores
        self.clock = clock
        self.appURL = appURL
        self.configuration = configuration
        self.http = http
    }

    static func start(_ settings: Settings = Settings()) async throws -> TestDeployment {
        let clock = ShiftableClock()
        let sandbox: SandboxIdentityProvider
        if let faults = settings.faults {
            let port = try LoopbackPort.unused()
            sandbox = SandboxIdentityProvider(
                configuration: SandboxConfiguration(
                    port: port, publicBaseURL: faults.baseURL, clock: clock, signingKeys: SharedKeys.signing))
            faults.forward(to: "http://127.0.0.1:\(port)")
        } else {
            var configuration = SandboxConfiguration(signingKeys: SharedKeys.signing)
            configuration.fapi2 = settings.fapi2
            sandbox = SandboxIdentityProvider(configuration: configuration)
        }
        try sandbox.start()
        let box = Mutex<SignInServer?>(nil)
        // As `authflow serve` wires it: a cached `/auth/check` is answered at once, every other request by the site.
        let http = HTTPServer(
            configuration: HTTPServer.Configuration(host: "127.0.0.1", port: 0),
            immediate: { request in box.withLock({ $0 })?.handleAtOnce(request) },
            routePolicy: { method, path in
                box.withLock({ $0 })?.routePolicy(method: method, path: path) ?? HTTPRoutePolicy(maxBodyBytes: 0)
            },
            handler: { request in
                guard let server = box.withLock({ $0 }) else { return .empty(status: 503) }
                return await DemoSite(server: server, sandbox: sandbox).handle(request)
            })
        let port = try http.start()
        let appURL = "http://localhost:\(port)"
        let location = SourceLocation(fileName: "test.yaml", line: 1, column: 1, sourceLine: "")
        let providers = settings.providers.map { name in
            var provider = ProviderSettings(
                name: name, type: name.hasPrefix("passkey") ? "passkey" : name, clientID: Self.clientIDs[name],
                scopes: name == "x" ? ["users.read", "tweet.read", "offline.access"] : nil, location: location,
                nativeClients: settings.nativeClients[name] ?? [])
            provider.options = settings.options[name] ?? ProviderOptions()
            // A passkey provider's relying party defaults from the public URL, known only now.
            if name.hasPrefix("passkey") { provider.options.publicURL = appURL }
            return provider
        }
        let loaded = Configuration(
            server: ServerSettings(
                listen: ListenAddress(host: "127.0.0.1", port: port), publicURL: appURL,
                secret: Secret("test-secret-0123456789abcdef-0123456789"), allowedReturnTo: settings.allowedReturnTo,
                sessionTTL: settings.sessionTTL, signup: settings.signup,
                linkByVerifiedEmail: settings.linkByVerifiedEmail, rateLimits: settings.rateLimits,
                nativeSessionTTL: settings.nativeSessionTTL, pathPrefix: settings.pathPrefix,
                access: settings.access, sessionIdleTimeout: settings.sessionIdleTimeout,
                nativeSessionMaxAge: settings.nativeSessionMaxAge),
            store: StoreSettings(kind: .memory), providers: providers)
        let deployment = try SandboxDeployment.attach(loaded, to: sandbox)
        var configuration = deployment.configuration
        var registry = ProviderRegistry.standard
        if let adapt = settings.adapt { (configuration, registry) = try adapt(configuration, sandbox) }
        let stores = try settings.stores?(clock) ?? .memory(clock: clock)
        let httpClient = CurlHTTPClient(
            configuration: .init(defaultTimeout: settings.httpTimeout ?? 10, caBundlePath: settings.caBundlePath))
        let server: SignInServer
        if settings.metrics != nil || settings.sessionCacheLifetime != nil || settings.audit != nil {
            var options = try SignInServer.Options(configuration: configuration)
            options.keepsTraces = true
            options.audit = settings.audit
            if let lifetime = settings.sessionCacheLifetime { options.sessionCacheLifetime = lifetime }
            server = SignInServer(
                options: options, providers: try registry.resolve(configuration), stores: stores,
                httpClient: httpClient, clock: clock, metrics: settings.metrics)
        } else if settings.resolvesWithDiscovery {
            server = try await SignInServer(
                resolving: configuration, registry: registry, stores: stores, httpClient: httpClient, clock: clock,
                keepsTraces: true)
        } else {
            server = try SignInServer(
                configuration: configuration, registry: registry, stores: stores, httpClient: httpClient, clock: clock,
                keepsTraces: true)
        }
        box.withLock { $0 = server }
        return TestDeployment(
            sandbox: sandbox, server: server, stores: stores, clock: clock, appURL: appURL,
            configuration: configuration, http: http)
    }

    static let clientIDs = [
        "apple": "com.example.web", "google": "123.apps.googleusercontent.com", "facebook": "1234567890", "x": "abc",
    ]

    func stop() async {
        await http.stop()
        await sandbox.stop()
    }

    /// Runs `body` with a fresh deployment and always stops it.
    static func with<T>(
        _ settings: Settings = Settings(), _ body: (TestDeployment) async throws -> T
    ) async throws -> T {
        let deployment = try await start(settings)
        do {
            let result = try await body(deployment)
            await deployment.stop()
            return result
        } catch {
            await deployment.stop()
            throw error
        }
    }

    // MARK: - Driving a sign-in

    /// Where the provider sent the browser back.
    enum ProviderAnswer {
        case get(String)
        case post(action: String, fields: [(String, String)])
    }

    /// Starts a sign-in in `browser` and lets the sandbox approve it as `identity`; returns the provider's
    /// answer without delivering it.
    func authorize(
        _ browser: TestBrowser, provider: String, as identity: SandboxIdentity, intent: String = "login",
        returnTo: String? = "/"
    ) async throws -> ProviderAnswer {
        let query = returnTo.map { "?return_to=" + FormURLEncoding.encode([("x", $0)]).dropFirst(2) } ?? ""
        let start = try await browser.get("\(routesURL)/\(provider)/\(intent)\(query)")
        try #require(start.status == 302, "login answered \(start.status): \(start.text)")
        let kind = try #require(SandboxProvider(rawValue: provider))
        sandbox.setAutoConsent(identity, for: kind)
        let authorize = try await browser.get(try #require(start.location))
        if authorize.status == 302 { return .get(try #require(authorize.location)) }
        try #require(authorize.status == 200, "authorize answered \(authorize.status): \(authorize.text)")
        let form = try #require(HTMLForm(authorize.text), "expected a form_post page")
        return .post(action: form.action, fields: form.fields)
    }

    /// Delivers the provider's answer as a browser would: a GET redirect, or Apple's cross-site form POST
    /// (answered with the bounce page, whose same-origin re-POST is then sent).
    func deliver(_ answer: ProviderAnswer, in browser: TestBrowser) async throws -> HTTPClientResponse {
        switch answer {
        case .get(let url):
            return try await browser.get(url)
        case .post(let action, let fields):
            let first = try await browser.post(action, form: fields, from: sandbox.baseURL)
            guard first.status == 200, let bounce = HTMLForm(first.text) else { return first }
            return try await browser.post(appURL + bounce.action, form: bounce.fields, from: appURL)
        }
    }

    /// A whole sign-in; returns the app's final answer (302/303 on success).
    @discardableResult
    func signIn(
        _ browser: TestBrowser, provider: String, as identity: SandboxIdentity, intent: String = "login",
        returnTo: String? = "/"
    ) async throws -> HTTPClientResponse {
        let answer = try await authorize(browser, provider: provider, as: identity, intent: intent, returnTo: returnTo)
        return try await deliver(answer, in: browser)
    }

    /// `GET /auth/session` as JSON.
    func session(_ browser: TestBrowser) async throws -> (status: Int, json: JSONValue?) {
        let response = try await browser.get("\(routesURL)/session")
        return (response.status, try? JSONValue.parse(response.body))
    }

    /// Where the sign-in routes live: the app's URL and `server.path_prefix`.
    var routesURL: String { appURL + server.options.pathPrefix }

    /// The session cookie's name for this deployment.
    var sessionCookie: String { server.context.sessions.cookies.sessionCookieName }
}

/// Identities used across tests.
enum People {
    static let alice = SandboxIdentity(
        subject: "alice-1", email: "alice@example.com", givenName: "Alice", familyName: "Example")
    static let bob = SandboxIdentity(subject: "bob-2", email: "bob@example.org", givenName: "Bob", familyName: "Other")
    static let carol = SandboxIdentity(
        subject: "carol-3", email: "carol@example.net", givenName: "Carol", familyName: "Third", username: "carol")
}

/// The JSON `{"error": …}` code of a response, if any.
func errorCode(_ response: HTTPClientResponse) -> String? {
    (try? JSONValue.parse(response.body))?["error"]?.stringValue
}

extension TestDeployment {
    /// Runs `body` against a deployment whose providers are reached through a new `FaultyProvider` (stopped
    /// afterwards, also when `body` throws), with `httpTimeout` as the server's client timeout; `configure`
    /// adjusts the other settings.
    static func withFaultyProvider(
        httpTimeout: Double, configure: (inout Settings) throws -> Void = { _ in },
        _ body: (TestDeployment, FaultyProvider) async throws -> Void
    ) async throws {
        let faults = try FaultyProvider()
        var settings = Settings()
        settings.faults = faults
        settings.httpTimeout = httpTimeout
        do {
            try configure(&settings)
            try await with(settings) { app in try await body(app, faults) }
            await faults.stop()
        } catch {
            await faults.stop()
            throw error
        }
    }
}
