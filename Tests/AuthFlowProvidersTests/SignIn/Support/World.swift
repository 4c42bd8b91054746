import AuthFlow
import AuthFlowDeployment
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowOIDC
import AuthFlowProviders
import AuthFlowSandbox
import Foundation
import Testing

/// One complete, isolated test world on loopback: the sandbox identity provider (its own listener), an
/// interposer in front of its back-channel endpoints, the relying party's callback listener, and the core
/// `SignIn` driver with the real plugins, resolved from YAML text (with OpenID Connect discovery) whose
/// endpoints and issuers point at the sandbox.
///
/// Browser-facing endpoints (authorization) go to the sandbox directly; token, userinfo, JWKS and
/// revocation go through the interposer, which forwards unchanged unless a test installs a hook.
final class World: Sendable {
    /// What a world is built with.
    struct Options: Sendable {
        /// Google's `capabilities:` (e.g. `["oidc": false, "pkce": true]`); empty keeps the defaults.
        var google: [String: Bool] = [:]
        /// Google's `authorization_params:` (e.g. `["access_type": "offline"]`); empty writes none.
        var googleAuthorizationParams: [String: String] = [:]
        /// Facebook's `capabilities:`.
        var facebook: [String: Bool] = [:]
        /// Apple's `capabilities:`.
        var apple: [String: Bool] = [:]
        /// Apple's `scopes:`; `nil` keeps the default (`name`, `email`).
        var appleScopes: [String]? = nil
        /// Seconds the sandbox's clock runs ahead of the relying party's (negative: behind).
        var sandboxAhead: Double = 0
        /// The key the relying party signs Apple client secrets with; `nil` uses the registered one.
        var appleSigningKey: JWK? = nil
        /// The plugins; the standard registry unless a test registers its own.
        var registry: ProviderRegistry = .standard
        /// Extra YAML under `providers:` (given the world's URLs), e.g. for an application's own plugin.
        var extraProviders: (@Sendable (URLs) -> String)? = nil
        /// Extra redirect URIs' provider names for the sandbox's Google client.
        var extraGoogleClients: [String] = []
    }

    /// Where everything listens.
    struct URLs: Sendable {
        let sandbox: String
        let interposer: String
        let app: String
    }

    /// The outcome of one sign-in through the browser.
    struct Attempt: Sendable {
        let start: SignInStart
        let binding: String
        let callback: CallbackRequest
        let outcome: Result<SignInResult, SignInError>

        var result: SignInResult {
            get throws {
                switch outcome {
                case .success(let result): return result
                case .failure(let error): throw E2EFailure("expected a sign-in, found \(error)")
                }
            }
        }

        var identity: VerifiedIdentity { get throws { try result.identity } }

        var error: SignInError? {
            if case .failure(let error) = outcome { return error }
            return nil
        }
    }

    let clock: ManualClock
    let sandboxClock: ManualClock
    let sandbox: SandboxIdentityProvider
    let interposer: Interposer
    let app: TestApp
    let urls: URLs
    let providers: [ResolvedProvider]
    let signIn: SignIn
    let tokens: TokenOperations
    let discovery: OIDCDiscovery

    private init(
        clock: ManualClock, sandboxClock: ManualClock, sandbox: SandboxIdentityProvider, interposer: Interposer,
        app: TestApp, urls: URLs, providers: [ResolvedProvider], discovery: OIDCDiscovery
    ) {
        self.clock = clock
        self.sandboxClock = sandboxClock
        self.sandbox = sandbox
        self.interposer = interposer
        self.app = app
        self.urls = urls
        self.providers = providers
        self.discovery = discovery
        signIn = SignIn(
            providers: providers, httpClient: E2E.client, flowStore: InMemoryFlowStore(clock: clock), clock: clock)
        tokens = TokenOperations(providers: providers, httpClient: E2E.client, clock: clock)
        app.install(signIn)
    }

    /// Builds a world, runs `body` in it, and always stops its listeners.
    static func run<T>(_ options: Options = Options(), _ body: (World) async throws -> T) async throws -> T {
        let world = try await make(options)
        do {
            let result = try await body(world)
            await world.shutdown()
            return result
        } catch {
            await world.shutdown()
            throw error
        }
    }

    static func make(_ options: Options) async throws -> World {
        let clock = ManualClock(E2E.start)
        let sandboxClock = ManualClock(E2E.start.addingTimeInterval(options.sandboxAhead))
        let sandbox = SandboxIdentityProvider(
            configuration: SandboxConfiguration(clock: sandboxClock, signingKeys: try E2E.signingKeys.get()))
        let sandboxURL = try sandbox.start()
        let interposer: Interposer
        let app: TestApp
        do {
            interposer = try Interposer(target: sandboxURL, client: E2E.client)
            app = try TestApp(sandbox: sandbox)
        } catch {
            await sandbox.stop()
            throw error
        }
        let urls = URLs(sandbox: sandboxURL, interposer: interposer.baseURL, app: app.baseURL)
        do {
            let appleKey = try E2E.appleClientKey.get()
            try sandbox.register(
                .apple(
                    clientID: E2E.appleClientID, teamID: E2E.teamID, keyID: E2E.appleKeyID,
                    publicKey: appleKey.publicKey,
                    redirectURIs: [app.callbackURL("apple")]))
            try sandbox.register(
                .google(
                    clientID: E2E.googleClientID, clientSecret: E2E.googleSecret,
                    redirectURIs: (["google", "corp", "corp-proxied"] + options.extraGoogleClients).map(app.callbackURL)
                ))
            try sandbox.register(
                .facebook(
                    clientID: E2E.facebookClientID, clientSecret: E2E.facebookSecret,
                    redirectURIs: [app.callbackURL("facebook")]))
            try sandbox.register(
                .x(clientID: E2E.xClientID, clientSecret: E2E.xSecret, redirectURIs: [app.callbackURL("x")]))

            let pem = try (options.appleSigningKey ?? appleKey).pkcs8PEM()
            let loader = ConfigurationLoader(environment: [:]) { path in
                guard path == "AuthKey.p8" else { throw E2EFailure("no file \(path)") }
                return pem
            }
            let yaml = Self.yaml(urls, options)
            let configuration = try loader.load(yaml: yaml, fileName: "providers.yaml")
            let discovery = OIDCDiscovery(httpClient: E2E.client, timeout: 60)
            let providers = try await options.registry.resolve(configuration, discovery: discovery)
            return World(
                clock: clock, sandboxClock: sandboxClock, sandbox: sandbox, interposer: interposer, app: app,
                urls: urls,
                providers: providers, discovery: discovery)
        } catch {
            await app.stop()
            await interposer.stop()
            await sandbox.stop()
            throw error
        }
    }

    func shutdown() async {
        await app.stop()
        await interposer.stop()
        await sandbox.stop()
    }

    static func capabilities(_ values: [String: Bool]) -> String {
        guard !values.isEmpty else { return "" }
        let pairs = values.keys.sorted().map { "\($0): \(values[$0] == true)" }
        return "    capabilities: { \(pairs.joined(separator: ", ")) }\n"
    }

    static func authorizationParams(_ values: [String: String]) -> String {
        guard !values.isEmpty else { return "" }
        return "    authorization_params:\n"
            + values.keys.sorted().map { "      \($0): \(values[$0] ?? "")\n" }.joined()
    }

    static func scopes(_ values: [String]?) -> String {
        guard let values else { return "" }
        return "    scopes: [\(values.joined(separator: ", "))]\n"
    }

    /// `providers.yaml` for this world: the four built-ins and two `type: oidc` providers discovered from the
    /// sandbox's Google emulator (`corp` entirely from discovery, `corp-proxied` with its back channel through
    /// the interposer).
    static func yaml(_ urls: URLs, _ options: Options) -> String {
        let (s, i, a) = (urls.sandbox, urls.interposer, urls.app)
        return """
            providers:
              apple:
                type: apple
                client_id: \(E2E.appleClientID)
                team_id: \(E2E.teamID)
                key_id: \(E2E.appleKeyID)
                private_key_file: AuthKey.p8
                issuer: \(s)/apple
                redirect_uri: \(a)/auth/apple/callback
            \(capabilities(options.apple))\(scopes(options.appleScopes))    endpoints:
                  authorization: \(s)/apple/auth/authorize
                  token: \(i)/apple/auth/token
                  jwks: \(i)/apple/auth/keys
                  revocation: \(i)/apple/auth/revoke
              google:
                type: google
                client_id: \(E2E.googleClientID)
                client_secret: \(E2E.googleSecret)
                issuer: \(s)/google
                redirect_uri: \(a)/auth/google/callback
            \(capabilities(options.google))\(authorizationParams(options.googleAuthorizationParams))    endpoints:
                  authorization: \(s)/google/o/oauth2/v2/auth
                  token: \(i)/google/token
                  userinfo: \(i)/google/v1/userinfo
                  jwks: \(i)/google/oauth2/v3/certs
                  revocation: \(i)/google/revoke
              facebook:
                type: facebook
                client_id: "\(E2E.facebookClientID)"
                client_secret: \(E2E.facebookSecret)
                redirect_uri: \(a)/auth/facebook/callback
            \(capabilities(options.facebook))    endpoints:
                  authorization: \(s)/facebook/v19.0/dialog/oauth
                  token: \(i)/facebook/v19.0/oauth/access_token
                  userinfo: \(i)/facebook/me
              x:
                type: x
                client_id: \(E2E.xClientID)
                client_secret: \(E2E.xSecret)
                scopes: [tweet.read, users.read, users.email, offline.access]
                redirect_uri: \(a)/auth/x/callback
                endpoints:
                  authorization: \(s)/x/i/oauth2/authorize
                  token: \(i)/x/2/oauth2/token
                  userinfo: "\(i)/x/2/users/me?user.fields=confirmed_email"
                  revocation: \(i)/x/2/oauth2/revoke
              corp:
                type: oidc
                issuer: \(s)/google
                client_id: \(E2E.googleClientID)
                client_secret: \(E2E.googleSecret)
                redirect_uri: \(a)/auth/corp/callback
              corp-proxied:
                type: oidc
                issuer: \(s)/google
                client_id: \(E2E.googleClientID)
                client_secret: \(E2E.googleSecret)
                redirect_uri: \(a)/auth/corp-proxied/callback
                endpoints:
                  token: \(i)/google/token
                  userinfo: \(i)/google/v1/userinfo
                  jwks: \(i)/google/oauth2/v3/certs
            \(options.extraProviders?(urls) ?? "")
            """
    }

    // MARK: - Sign-in through the browser

    /// Begins a sign-in, lets the browser sign in at the sandbox with `choice`, and delivers the answer to the
    /// app's callback with the flow cookie (`cookie: nil` presents the flow cookie the sign-in began with).
    func signIn(_ provider: String, as choice: ConsentChoice = .preset(0), cookie: String?? = .none) async throws
        -> Attempt
    {
        let start = try await signIn.begin(
            provider: provider, returnTo: "/", browserBinding: signIn.newBrowserBinding())
        let binding = try TestApp.flowCookie(start.record)
        let browser = Browser(client: E2E.client, binding: binding)
        let page = try await browser.openConsentPage(start.redirectURL)
        let answer = try await browser.consent(page, choice)
        let callback = try browser.callback(from: answer)
        let delivering = Browser(client: E2E.client, binding: cookie ?? binding)
        let outcome = try await self.outcome(delivering.deliver(callback))
        return Attempt(start: start, binding: binding, callback: callback, outcome: outcome)
    }

    /// Sends `callback` again (a replay), with `binding` as the flow cookie.
    func deliver(_ callback: CallbackRequest, binding: String?) async throws -> Result<SignInResult, SignInError> {
        try outcome(await Browser(client: E2E.client, binding: binding).deliver(callback))
    }

    /// Begins a fresh sign-in (new state and flow cookie) without visiting the provider.
    func begin(_ provider: String) async throws -> (start: SignInStart, binding: String) {
        let start = try await signIn.begin(
            provider: provider, returnTo: "/", browserBinding: signIn.newBrowserBinding())
        return (start, try TestApp.flowCookie(start.record))
    }

    func outcome(_ index: Int) throws -> Result<SignInResult, SignInError> {
        guard let outcome = app.outcome(index) else { throw E2EFailure("no outcome \(index)") }
        return outcome
    }

    /// The value of `name` in the query of `url`.
    static func queryValue(_ name: String, in url: String) -> String? {
        let query = url.split(separator: "?", maxSplits: 1).dropFirst().first.map(String.init) ?? ""
        return FormURLEncoding.decode(query).first { $0.0 == name }?.1
    }
}
