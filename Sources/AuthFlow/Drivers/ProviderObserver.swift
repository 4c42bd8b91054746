package import AuthFlowJOSE

/// What the sign-in driver and the JWKS caches report about calls to providers, for metrics: pass one to
/// ``SignIn`` and ``ProviderKeySets`` (``NoProviderObserver`` by default). The library keeps no global state;
/// the application picks the backend (the sign-in server's Prometheus metrics, for instance).
///
/// Called on the request's task: keep implementations quick and non-blocking (an atomic add).
package protocol ProviderObserver: Sendable {
    /// A request to a provider endpoint finished: `status` is the HTTP status, or `nil` when no response
    /// arrived (transport failure); `seconds` is measured on the driver's clock.
    func providerRequestFinished(provider: String, endpoint: ProviderRequestEndpoint, status: Int?, seconds: Double)
    /// A provider's JWKS cache started a fetch, for `reason`.
    func jwksFetchStarted(provider: String, reason: JWKSFetchReason)
    /// A provider's JWKS cache served its older key set because a refetch failed.
    func jwksStaleServed(provider: String)
}

/// The provider endpoints whose requests ``ProviderObserver`` hears of.
package enum ProviderRequestEndpoint: String, Sendable, Hashable, CaseIterable {
    /// The token endpoint (code exchange, refresh).
    case token
    /// The userinfo endpoint.
    case userinfo
    /// The JWKS endpoint.
    case jwks
    /// The revocation endpoint.
    case revocation
}

/// A ``ProviderObserver`` that ignores everything (the default).
package struct NoProviderObserver: ProviderObserver {
    /// Creates the observer.
    package init() {}
    /// Ignores the request.
    package func providerRequestFinished(
        provider: String, endpoint: ProviderRequestEndpoint, status: Int?, seconds: Double
    ) {}
    /// Ignores the fetch.
    package func jwksFetchStarted(provider: String, reason: JWKSFetchReason) {}
    /// Ignores the stale read.
    package func jwksStaleServed(provider: String) {}
}

/// Adapts a ``ProviderObserver`` to one provider's ``JWKSCache``.
struct ProviderJWKSObserver: JWKSCacheObserver {
    let provider: String
    let observer: any ProviderObserver

    func jwksFetchStarted(reason: JWKSFetchReason) { observer.jwksFetchStarted(provider: provider, reason: reason) }
    func jwksStaleServed() { observer.jwksStaleServed(provider: provider) }
}
