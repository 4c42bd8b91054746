import AuthFlowHTTP
import AuthFlowHTTPServer
public import AuthFlowJOSE
import Foundation
import Synchronization

/// An offline stand-in for Apple, Google, Facebook, X, Microsoft Entra ID and GitHub: strict emulators of their
/// OAuth 2.0 / OpenID Connect endpoints under one HTTP listener, one path prefix each (`/apple`, `/google`,
/// `/facebook`, `/x`, `/microsoft`, `/github`).
///
/// Register the app's clients, ``start()`` the listener, and point the app at
/// ``endpoints(for:)``. Each emulator refuses what the real provider refuses (facts and their sources in
/// docs/providers.md): Apple's form_post rule for the `name`/`email` scopes and its ES256 client-secret JWT,
/// Google's PKCE and Bearer-only userinfo, Facebook's GET-only token endpoint and `appsecret_proof`,
/// X's mandatory PKCE, Basic client authentication and rotating refresh tokens, Microsoft's tenants, tenant
/// issuers, client authentication methods (secret or `private_key_jwt`) and RP-initiated logout, GitHub's
/// form-encoded token answers, `/user/emails` and grant revocation. Codes are single-use
/// and short-lived everywhere. The sign-in itself is a plain HTML consent page where the user picks or
/// types a test identity.
///
/// **Issuers.** Id_tokens carry the sandbox's own issuer, `<base URL>/<provider>` (e.g.
/// `http://127.0.0.1:49152/google`), never the real provider's, so a sandbox token can never pass for a
/// real one. Configure the relying party's expected `iss` with the ``SandboxEndpoints/issuer`` of
/// ``endpoints(for:)`` or set `SandboxConfiguration.issuerOverrides`.
public final class SandboxIdentityProvider: Sendable {
    /// The configuration the sandbox was created with.
    package let configuration: SandboxConfiguration
    let state: Mutex<SandboxState>

    /// Creates a sandbox; nothing listens until ``start()``. Signing keys are generated when first needed.
    public init(configuration: SandboxConfiguration = SandboxConfiguration()) {
        self.configuration = configuration
        var initial = SandboxState()
        initial.maximumPendingEntries = max(1, configuration.maximumPendingEntries)
        for (provider, key) in configuration.signingKeys where provider.issuesIDTokens {
            initial.keyRings[provider] = SigningKeyRing(current: key)
        }
        state = Mutex(initial)
    }

    // MARK: - Clients

    /// Registers (or replaces) a client with one of the emulated providers.
    ///
    /// - Throws: `SandboxError.Code.invalidClient` when the client id is empty, no redirect
    ///   URI is given, a redirect URI is not an absolute http(s) URL without a fragment, a Google or Facebook
    ///   client has no secret, or an Apple client's key is not a P-256 key.
    public func register(_ client: SandboxClient) throws(SandboxError) {
        func refuse(_ message: String) -> SandboxError {
            SandboxError(code: .invalidClient, message: message, provider: client.provider, clientID: client.clientID)
        }
        guard !client.clientID.isEmpty, client.clientID.utf8.count <= 256 else {
            throw refuse("expected a client_id of 1 to 256 bytes, found \(client.clientID.utf8.count)")
        }
        guard !client.redirectURIs.isEmpty else { throw refuse("expected at least one redirect URI, found none") }
        for uri in client.redirectURIs {
            guard let components = URLComponents(string: uri), let scheme = components.scheme?.lowercased(),
                scheme == "http" || scheme == "https", components.host?.isEmpty == false, components.fragment == nil
            else {
                throw refuse(
                    "expected redirect URIs to be absolute http(s) URLs without a fragment, found '\(clip(uri))'")
            }
        }
        let registered = try client.provider.emulator.checkRegistration(client, refuse: refuse)
        state.withLock { $0.clients[client.provider, default: [:]][client.clientID] = registered }
    }

    /// Removes a client; its codes and tokens stop working.
    package func unregister(_ provider: SandboxProvider, clientID: String) {
        state.withLock { state in
            state.clients[provider]?[clientID] = nil
            for grant in state.grants.values where grant.provider == provider && grant.clientID == clientID {
                state.revokeGrant(grant.id)
            }
        }
    }

    /// The registered client with that id, if any.
    package func client(_ provider: SandboxProvider, clientID: String) -> SandboxClient? {
        state.withLock { $0.client(provider, clientID) }
    }

    /// Generates a P-256 key pair for an Apple client's client-secret JWT, with a 10-character key id.
    ///
    /// Register its public half with ``SandboxClient/apple(clientID:teamID:keyID:publicKey:redirectURIs:)`` and
    /// sign client secrets with the private half (AuthFlowJOSE's `AppleClientSecret.make`, or write it as a
    /// `.p8` with `pkcs8PEM()`).
    /// - Throws: `SandboxError.Code.keyFailure` when key generation fails.
    public func generateAppleClientKey(keyID: String? = nil) throws(SandboxError) -> JWK {
        let kid = keyID ?? AppleEmulator().makeKeyID(random: configuration.random)
        do {
            return try JWK.generateP256(keyID: kid)
        } catch {
            throw SandboxError(code: .keyFailure, message: "could not generate a P-256 key: \(error.message)")
        }
    }

    // MARK: - Listener

    /// Starts the HTTP listener on `SandboxConfiguration.host` and `SandboxConfiguration.port`.
    ///
    /// - Returns: the base URL the sandbox advertises (e.g. `http://127.0.0.1:49152`).
    /// - Throws: `SandboxError.Code.alreadyStarted` when running, or
    ///   `SandboxError.Code.listenerFailed` when the address cannot be bound.
    @discardableResult
    public func start() throws(SandboxError) -> String {
        let claimed = state.withLock { state -> Bool in
            guard state.server == nil, !state.starting else { return false }
            state.starting = true
            return true
        }
        guard claimed else { throw SandboxError(code: .alreadyStarted, message: "the sandbox is already running") }
        var serverConfiguration = HTTPServer.Configuration()
        serverConfiguration.host = configuration.host
        serverConfiguration.port = configuration.port
        let server = HTTPServer(configuration: serverConfiguration) { [weak self] request in
            guard let self else { return HTTPServerResponse.empty(status: 503) }
            return await self.handle(request)
        }
        let port: Int
        do {
            port = try server.start()
        } catch {
            state.withLock { $0.starting = false }
            throw SandboxError(
                code: .listenerFailed,
                message: "could not listen on \(configuration.host):\(configuration.port): \(error)")
        }
        let advertisedHost: String
        switch configuration.host {
        case "0.0.0.0", "": advertisedHost = "127.0.0.1"
        case "::", "[::]": advertisedHost = "[::1]"
        case let host where host.contains(":") && !host.hasPrefix("["): advertisedHost = "[\(host)]"
        case let host: advertisedHost = host
        }
        state.withLock { state in
            state.server = server
            state.starting = false
            state.listenerBaseURL = "http://\(advertisedHost):\(port)"
        }
        return baseURL
    }

    /// Stops the listener gracefully (in-flight requests finish); the sandbox's state is kept.
    public func stop() async {
        let server = state.withLock { state -> HTTPServer? in
            defer {
                state.server = nil
                state.listenerBaseURL = nil
            }
            return state.server
        }
        await server?.stop()
    }

    /// The base URL the sandbox advertises: `SandboxConfiguration.publicBaseURL` if set, else the running
    /// listener's `http://host:port`, else `http://host:port` from the configuration.
    package var baseURL: String {
        if let url = configuration.publicBaseURL { return Self.trimmingTrailingSlash(url) }
        if let url = state.withLock({ $0.listenerBaseURL }) { return url }
        return "http://\(configuration.host):\(configuration.port)"
    }

    // MARK: - Endpoints and keys

    /// The `iss` of a provider's id_tokens: the override if configured, else `<base URL>/<provider>`; `nil` for X.
    ///
    /// Microsoft's is the multi-tenant template `<base URL>/microsoft/{tenantid}/v2.0` (see
    /// ``microsoftIssuer(tenantID:)`` for one tenant's); GitHub's is `<base URL>/github/login/oauth`, the RFC 9207
    /// `iss` of its authorization responses (it issues no id_tokens).
    package func issuer(for provider: SandboxProvider) -> String? {
        if let override = configuration.issuerOverrides[provider] { return override }
        return provider.emulator.defaultIssuer(root: baseURL + provider.pathPrefix)
    }

    /// The absolute URLs of a provider's endpoints on this sandbox.
    ///
    /// Microsoft's are those of the `common` authority.
    public func endpoints(for provider: SandboxProvider) -> SandboxEndpoints {
        provider.emulator.endpoints(root: baseURL + provider.pathPrefix, issuer: issuer(for: provider))
    }

    /// Replaces a provider's id_token signing key with a new RSA-2048 key and a new `kid`.
    ///
    /// - Parameters:
    ///   - provider: Apple, Google or Facebook.
    ///   - keepPrevious: keep publishing the old key in the JWKS (a graceful rotation, the default),
    ///     or drop it at once (tokens signed with it then fail to verify).
    /// - Returns: the new key id.
    /// - Throws: `SandboxError.Code.keyFailure` when the provider has no id_tokens (X) or key
    ///   generation fails.
    @discardableResult
    package func rotateSigningKey(for provider: SandboxProvider, keepPrevious: Bool = true) throws(SandboxError)
        -> String
    {
        let key = try makeSigningKey(for: provider)
        state.withLock { state in
            if let ring = state.keyRings[provider] {
                state.keyRings[provider] = SigningKeyRing(
                    current: key, previous: keepPrevious ? [ring.current] + ring.previous : [])
            } else {
                state.keyRings[provider] = SigningKeyRing(current: key)
            }
        }
        return key.keyID ?? ""
    }

    /// The public keys a provider publishes in its JWKS (current first), e.g. to verify its tokens directly.
    /// - Throws: `SandboxError.Code.keyFailure` for X, or when key generation fails.
    package func publishedKeys(for provider: SandboxProvider) throws(SandboxError) -> JWKSet {
        try keyRing(for: provider).publicKeySet
    }

    func keyRing(for provider: SandboxProvider) throws(SandboxError) -> SigningKeyRing {
        if let ring = state.withLock({ $0.keyRings[provider] }) { return ring }
        let key = try makeSigningKey(for: provider)
        return state.withLock { state in
            if let ring = state.keyRings[provider] { return ring }  // another request generated one meanwhile
            let ring = SigningKeyRing(current: key)
            state.keyRings[provider] = ring
            return ring
        }
    }

    private func makeSigningKey(for provider: SandboxProvider) throws(SandboxError) -> JWK {
        guard provider.issuesIDTokens else {
            throw SandboxError(
                code: .keyFailure, message: "expected a provider that issues id_tokens, found \(provider.rawValue)",
                provider: provider)
        }
        do {
            return try JWK.generateRSA(
                bits: 2048, keyID: provider.emulator.makeKeyID(random: configuration.random))
        } catch {
            throw SandboxError(
                code: .keyFailure, message: "could not generate an RSA signing key: \(error.message)",
                provider: provider)
        }
    }

    // MARK: - Observation (for tests)

    /// Every call to a provider's revocation endpoint (and notification-triggered revocation), oldest first.
    package func revocations(for provider: SandboxProvider) -> [SandboxRevocation] {
        state.withLock { $0.revocations[provider] ?? [] }
    }

    /// How many requests each of a provider's endpoints has received.
    package func requestCounts(for provider: SandboxProvider) -> SandboxRequestCounts {
        state.withLock { $0.counts[provider] ?? SandboxRequestCounts() }
    }

    /// Makes a provider's authorization endpoint approve at once as `identity` (no consent page), or restores
    /// the consent page with `nil`. For headless end-to-end tests; every other check still applies.
    package func setAutoConsent(_ identity: SandboxIdentity?, for provider: SandboxProvider) {
        state.withLock { $0.autoConsent[provider] = identity }
    }

    /// Forgets a user's consent to a client and revokes their tokens, as when the user removes the app in their
    /// account settings; Apple then sends the `user` field again on the next sign-in.
    package func forgetConsent(_ provider: SandboxProvider, clientID: String, subject: String) {
        state.withLock { $0.withdrawConsent(provider: provider, clientID: clientID, subject: subject) }
    }

    // MARK: - Helpers

    var now: Date { configuration.clock.now() }

    /// A fresh unguessable value: 32 random bytes, base64url.
    func randomToken(prefix: String = "") -> String {
        prefix + Base64URL.encode(configuration.random.bytes(32))
    }

    static func trimmingTrailingSlash(_ text: String) -> String {
        var result = Substring(text)
        while result.hasSuffix("/") { result = result.dropLast() }
        return String(result)
    }
}
