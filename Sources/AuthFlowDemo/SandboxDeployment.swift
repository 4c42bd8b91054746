public import AuthFlow
import AuthFlowDeployment
package import AuthFlowSandbox
import AuthFlowServer
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `serve --sandbox` / `demo`: the built-in sandbox identity provider running in-process, with the app's
/// configuration rewritten to use it.
///
/// ``start(configuration:clock:random:)`` starts the sandbox on `sandbox.listen` (default
/// `127.0.0.1:0`, a free port), generates credentials for every configured provider (client secrets; an
/// ES256 key, team id and key id for Apple), registers the app's clients with the sandbox (redirect URI
/// `{public_url}{path_prefix}/{name}/callback` unless `redirect_uri` is set), and replaces each provider's endpoints
/// **and** issuer with the sandbox's and its credentials with the generated ones, before anything is
/// resolved. ``start(configuration:clock:random:)`` always generates `server.secret` (a configured one is
/// never used, so nothing the sandbox signs in is valid under the real secret); `attach(_:to:random:)`
/// generates it when unset. The app itself stays at `server.public_url`, so app (`localhost`) and sandbox
/// (`127.0.0.1`) are different sites, as with a real provider.
public struct SandboxDeployment: Sendable {
    /// The running sandbox.
    package let sandbox: SandboxIdentityProvider
    /// The configuration pointed at the sandbox, with generated credentials and a server secret.
    public let configuration: Configuration
    /// Whether `server.secret` was generated (then nothing encrypted with it outlives the process).
    package let secretWasGenerated: Bool

    /// The sandbox's base URL, e.g. `http://127.0.0.1:49152`.
    package var baseURL: String { sandbox.baseURL }

    /// The public URL used when the configuration has no `server:` section.
    package static let defaultPublicURL = "http://localhost:8080"

    /// Starts the sandbox and rewrites `configuration` for it.
    ///
    /// - Throws: `ConfigurationError` when a provider's type has no sandbox emulator (the sandbox
    ///   emulates `apple`, `google`, `facebook`, `x`, `microsoft` and `github`; `passkey` needs none) or `sandbox.listen` is not a loopback address
    ///   (`invalid_value`), or `SandboxError` when the sandbox cannot listen or
    ///   a client cannot be registered. The sandbox is stopped again when rewriting fails.
    public static func start(
        configuration: Configuration, clock: any WallClock = SystemClock(), random: any SecureRandom = SystemRandom()
    ) async throws -> SandboxDeployment {
        var issues: [ConfigurationIssue] = []
        // A passkey provider makes no round trip to anyone: it needs no emulator and is kept as written.
        let fapi2 = configuration.sandbox?.fapi2 ?? false
        for settings in configuration.providers
        where SandboxProvider(rawValue: settings.type) == nil && !Self.needsNoStandIn(settings)
            && !(fapi2 && Self.supportsFAPI2(settings))
        {
            issues.append(
                ConfigurationIssue(
                    code: .notAvailable,
                    message: "provider '\(settings.name)' has type '\(settings.type)', which the sandbox does not "
                        + "emulate (it emulates "
                        + SandboxProvider.allCases.map(\.rawValue).joined(separator: ", ") + ")",
                    location: settings.typeLocation ?? settings.location))
        }
        let listen = configuration.sandbox?.listen ?? ListenAddress(host: "127.0.0.1", port: 0)
        if !isLoopback(listen.host) {
            issues.append(
                ConfigurationIssue(
                    code: .invalidValue,
                    message: "sandbox.listen must be a loopback address (127.0.0.0/8 or ::1): anyone who reaches "
                        + "the sandbox can sign in as anybody; found host '\(listen.host.prefix(64))'",
                    location: nil))
        }
        guard issues.isEmpty else { throw ConfigurationError(issues: issues) }

        var sandboxConfiguration = SandboxConfiguration(
            host: listen.host, port: listen.port, clock: clock, random: random)
        sandboxConfiguration.fapi2 = fapi2
        if let tenants = configuration.sandbox?.microsoftTenants, !tenants.isEmpty {
            sandboxConfiguration.microsoftTenants = tenants.enumerated().map { index, id in
                SandboxMicrosoftTenant(id: id, name: "Tenant \(index + 1)")
            }
        }
        let sandbox = SandboxIdentityProvider(configuration: sandboxConfiguration)
        try sandbox.start()
        do {
            return try attach(configuration, to: sandbox, random: random, keepingSecret: false)
        } catch {
            await sandbox.stop()
            throw error
        }
    }

    /// Sandbox mode for an app that embeds the sign-in server, in one call: loads `path` (`${VAR}`s from
    /// `environment`, the process's by default) as `authflow serve --sandbox` does
    /// (`ConfigurationLoader.Mode.sandbox`: absent credentials and unset `${VAR}`s of credentials are
    /// forgiven), then ``start(configuration:clock:random:)``. Create the server from ``configuration``
    /// with in-memory stores (`SignInServer.Stores.memory(clock:)`), and ``stop()`` when the app stops.
    ///
    /// - Throws: `ConfigurationError` when the file does not load or names a provider the sandbox does not
    ///   emulate, `SandboxError` when the sandbox cannot start.
    public static func start(
        loading path: String, environment: [String: String]? = nil,
        clock: any WallClock = SystemClock(), random: any SecureRandom = SystemRandom()
    ) async throws -> SandboxDeployment {
        let configuration = try ConfigurationLoader(
            environment: environment ?? ProcessInfo.processInfo.environment, mode: .sandbox
        ).load(path: path)
        return try await start(configuration: configuration, clock: clock, random: random)
    }

    /// Stops the sandbox identity provider.
    public func stop() async {
        await sandbox.stop()
    }

    /// The configured settings sandbox mode does not use, as configuration keys (`store.postgres_url`,
    /// `store.redis_url`, `server.secret`, a `store.kind` other than `memory`), for the note `serve --sandbox`
    /// prints on start; empty when the configuration names none of them.
    package static func ignoredSettings(of configuration: Configuration) -> [String] {
        var ignored: [String] = []
        let store = configuration.store
        if store.kind == .postgres || store.postgresURL != nil {
            ignored.append("store.postgres_url")
        } else if store.kind == .sqlite, store.path != StoreSettings().path {
            ignored.append("store.path")
        }
        if store.redisURL != nil { ignored.append("store.redis_url") }
        if configuration.server?.secret != nil { ignored.append("server.secret") }
        return ignored
    }

    /// Rewrites `configuration` for an already running `sandbox` (e.g. one a test started): registers a client
    /// with generated credentials per provider and points every provider at it.
    ///
    /// - Throws: `SandboxError` when a client cannot be registered or a key generated. Providers whose type
    ///   the sandbox does not emulate are left out.
    package static func attach(
        _ configuration: Configuration, to sandbox: SandboxIdentityProvider, random: any SecureRandom = SystemRandom()
    ) throws -> SandboxDeployment {
        try attach(configuration, to: sandbox, random: random, keepingSecret: true)
    }

    /// Whether the standard registry's plugin for the provider's type makes no round trip to anyone
    /// (``ProviderDescription/ownProtocol`` set: passkeys), so it needs no emulator and is kept as written.
    static func needsNoStandIn(_ settings: ProviderSettings) -> Bool {
        ProviderRegistry.standard.typesWithoutClient.contains(settings.type)
    }

    /// Whether the standard registry's plugin for the provider's type declares `profile: fapi2`
    /// (``ProviderDescription/profiles``): `sandbox.fapi2` points such a provider at the sandbox's FAPI 2.0 issuer.
    static func supportsFAPI2(_ settings: ProviderSettings) -> Bool {
        ProviderRegistry.standard.types(supporting: .fapi2).contains(settings.type)
    }

    static func attach(
        _ configuration: Configuration, to sandbox: SandboxIdentityProvider, random: any SecureRandom,
        keepingSecret: Bool
    ) throws -> SandboxDeployment {
        let existing = configuration.server
        let publicURL = existing?.publicURL ?? defaultPublicURL
        let pathPrefix = existing?.pathPrefix ?? ServerSettings.defaultPathPrefix
        var providers: [ProviderSettings] = []
        for settings in configuration.providers {
            if Self.supportsFAPI2(settings), sandbox.configuration.fapi2 {
                providers.append(
                    try registerFAPIClient(settings, publicURL: publicURL, pathPrefix: pathPrefix, sandbox: sandbox))
                continue
            }
            guard let kind = SandboxProvider(rawValue: settings.type) else {
                // A provider that makes no round trip to anyone (passkeys) needs no stand-in: kept as written.
                if Self.needsNoStandIn(settings) { providers.append(settings) }
                continue
            }
            providers.append(
                try register(
                    settings, kind: kind, publicURL: publicURL, pathPrefix: pathPrefix, sandbox: sandbox,
                    random: random))
        }
        let kept = keepingSecret ? existing?.secret : nil
        let generated = kept == nil
        let secret = kept ?? Secret(Hex.encode(random.bytes(32)))
        var server = ServerSettings(
            listen: existing?.listen ?? ListenAddress(host: "127.0.0.1", port: 8080), publicURL: publicURL,
            secret: secret, allowedReturnTo: existing?.allowedReturnTo ?? ["/"],
            sessionTTL: existing?.sessionTTL ?? 8 * 3600, signup: existing?.signup ?? true,
            linkByVerifiedEmail: existing?.linkByVerifiedEmail ?? false, limits: existing?.limits ?? ConnectionLimits(),
            trustedProxies: existing?.trustedProxies ?? [],
            rateLimits: existing.map(\.rateLimits) ?? RateLimitSettings(), metricsListen: existing?.metricsListen,
            logFormat: existing?.logFormat ?? .text, nativeSessionTTL: existing?.nativeSessionTTL ?? 30 * 86_400,
            pathPrefix: pathPrefix, access: existing?.access ?? AccessRules(),
            sessionIdleTimeout: existing?.sessionIdleTimeout, nativeSessionMaxAge: existing?.nativeSessionMaxAge)
        server.tenantRuleSites = existing?.tenantRuleSites ?? []
        server.auditLog = existing?.auditLog
        server.tracing = existing?.tracing
        let rewritten = Configuration(
            server: server, sandbox: configuration.sandbox, store: configuration.store, providers: providers)
        return SandboxDeployment(sandbox: sandbox, configuration: rewritten, secretWasGenerated: generated)
    }

    /// Registers one provider's client with generated credentials and returns its settings pointed at the sandbox.
    static func register(
        _ settings: ProviderSettings, kind: SandboxProvider, publicURL: String, pathPrefix: String,
        sandbox: SandboxIdentityProvider,
        random: any SecureRandom
    ) throws -> ProviderSettings {
        let clientID = settings.clientID ?? SandboxIdentityProvider.demoClientIDs[kind] ?? kind.rawValue
        let redirectURI = settings.redirectURI(publicURL: publicURL, pathPrefix: pathPrefix)
        let demo = try sandbox.registerDemoClient(kind, clientID: clientID, redirectURIs: [redirectURI])
        var privateKey: Secret?
        if let key = demo.privateKey {
            // The app's bundle ids, under the same team and key: Apple's native code exchange authenticates as them.
            for bundleID in settings.nativeClients where bundleID != clientID {
                try sandbox.register(
                    .apple(
                        clientID: bundleID, teamID: demo.teamID ?? SandboxIdentityProvider.demoTeamID,
                        keyID: demo.keyID ?? "", publicKey: key.publicKey, redirectURIs: [redirectURI]))
            }
            privateKey = Secret(try key.pkcs8PEM())
        }
        let clientSecret = demo.clientSecret.map { Secret($0) }
        let teamID = demo.teamID
        let keyID = demo.keyID
        let endpoints = sandbox.endpoints(for: kind)
        // An empty revocation URL means "none": the plugin default (the real provider's) must not be used.
        let overrides = ProviderEndpoints(
            authorization: endpoints.authorization, token: endpoints.token, userinfo: endpoints.userinfo,
            jwks: endpoints.jwks, revocation: endpoints.revocation ?? "")
        var pointed = ProviderSettings(
            name: settings.name, type: settings.type, clientID: clientID, clientSecret: clientSecret,
            audiences: settings.audiences, teamID: teamID, keyID: keyID, privateKey: privateKey,
            scopes: settings.scopes,
            capabilities: settings.capabilities, redirectURI: settings.redirectURI, issuer: endpoints.issuer,
            endpoints: overrides, authorizationParameters: settings.authorizationParameters,
            location: settings.location,
            typeLocation: settings.typeLocation,
            capabilityLocations: settings.capabilityLocations, keyLocations: settings.keyLocations,
            nativeClients: settings.nativeClients,
            // The registered client holds a generated secret, so a private_key_jwt choice falls back to the default.
            clientAuthentication: settings.clientAuthentication == .privateKeyJWT ? nil : settings.clientAuthentication,
            claims: settings.claims)
        // The tenant and its allow-list still apply; the sandbox's endpoints and issuer replace the base URL's.
        pointed.options = settings.options
        return pointed
    }

    /// Registers a `type: oidc` provider's client with the OpenID issuer in its FAPI 2.0 mode (`sandbox.fapi2`):
    /// `private_key_jwt` with a generated P-256 key; the provider keeps its other keys (`profile`, `par`, `dpop`)
    /// and discovers the issuer's endpoints.
    static func registerFAPIClient(
        _ settings: ProviderSettings, publicURL: String, pathPrefix: String, sandbox: SandboxIdentityProvider
    ) throws -> ProviderSettings {
        let clientID = settings.clientID ?? "fapi-client"
        let redirectURI = settings.redirectURI ?? settings.redirectURI(publicURL: publicURL, pathPrefix: pathPrefix)
        let key = try JWK.generateP256(keyID: "sandbox-fapi")
        try sandbox.register(.openID(clientID: clientID, redirectURIs: [redirectURI], assertionKeys: [key]))
        var pointed = ProviderSettings(
            name: settings.name, type: settings.type, clientID: clientID, keyID: key.keyID,
            privateKey: Secret(try key.pkcs8PEM()), scopes: settings.scopes, capabilities: settings.capabilities,
            redirectURI: settings.redirectURI, issuer: sandbox.issuer(for: .google),
            authorizationParameters: settings.authorizationParameters, location: settings.location,
            typeLocation: settings.typeLocation, capabilityLocations: settings.capabilityLocations,
            keyLocations: settings.keyLocations, clientAuthentication: .privateKeyJWT, claims: settings.claims)
        pointed.pushedAuthorization = settings.pushedAuthorization
        pointed.requestObject = settings.requestObject
        pointed.dpop = settings.dpop
        pointed.profile = settings.profile
        return pointed
    }

    /// Whether `host` is an IPv4 loopback address (127.0.0.0/8) or `::1`, written as a literal.
    static func isLoopback(_ host: String) -> Bool {
        var address = in_addr()
        if inet_pton(AF_INET, host, &address) == 1 {
            return UInt32(bigEndian: address.s_addr) >> 24 == 127
        }
        var address6 = in6_addr()
        guard inet_pton(AF_INET6, host, &address6) == 1 else { return false }
        return withUnsafeBytes(of: &address6) { bytes in bytes.dropLast().allSatisfy { $0 == 0 } && bytes.last == 1 }
    }
}
