public import AuthFlowJOSE
public import Foundation

/// What a plugin may use to verify and interpret one provider event.
///
/// Signed events are verified with ``verify(_:with:)``, which goes through the same key cache as sign-in
/// (one per provider): a key rotation seen by one is seen by both, and an unknown `kid` refetches once
/// (rate-limited). The account store is for reads (is this identity known, which tokens are stored); every
/// change goes back to the server as a ``ProviderEventAction``, so it is applied once, in one transaction.
public struct ProviderEventContext: Sendable {
    /// The configured provider the endpoint belongs to (`/auth/{name}/…`).
    public let provider: ResolvedProvider
    /// The providers' JWKS caches, shared with sign-in.
    package let keySets: ProviderKeySets
    /// The account store, for reads.
    package let accounts: any AccountStore
    /// The time source.
    package let clock: any WallClock
    /// Clock-skew allowance in seconds for `iat`/`exp`/`nbf`.
    public let leeway: Double
    /// The server's public base URL (no trailing `/`), for links in answers such as a status page URL.
    package let publicURL: String
    /// The path the sign-in routes live under (`server.path_prefix`, `/auth` by default).
    package let pathPrefix: String

    /// Creates a context (the server does this per event).
    package init(
        provider: ResolvedProvider, keySets: ProviderKeySets, accounts: any AccountStore, clock: any WallClock,
        leeway: Double, publicURL: String, pathPrefix: String = Configuration.defaultPathPrefix
    ) {
        self.pathPrefix = pathPrefix
        self.provider = provider
        self.keySets = keySets
        self.accounts = accounts
        self.clock = clock
        self.leeway = leeway
        var base = Substring(publicURL)
        while base.hasSuffix("/") { base = base.dropLast() }
        self.publicURL = String(base)
    }

    /// The public URL of this provider's route `path` (`events`, `data-deletion/CODE`):
    /// `{publicURL}{pathPrefix}/{provider}/{path}`.
    public func routeURL(_ path: String) -> String {
        "\(publicURL)\(pathPrefix)/\(provider.name)/\(path)"
    }

    /// The current time.
    public var now: Date { clock.now() }

    /// Verifies a compact JWS signed with the provider's JWKS keys and checks its claims with `verifier`.
    ///
    /// - Throws: `JOSEError` (`jwks_unavailable` when the provider has no key set or it cannot be fetched).
    public func verify(_ token: String, with verifier: JWTVerifier) async throws(JOSEError) -> JWTClaims {
        try await keySets.verify(token, provider: provider.name, with: verifier)
    }

    /// The stored identity, read for the plugin.
    ///
    /// - Throws: ``ProviderEventError`` `store_unavailable` (503).
    public func identity(_ key: IdentityKey) async throws(ProviderEventError) -> LinkedIdentity? {
        do throws(StoreError) {
            return try await accounts.identity(key)
        } catch {
            throw .storeUnavailable(error)
        }
    }
}
