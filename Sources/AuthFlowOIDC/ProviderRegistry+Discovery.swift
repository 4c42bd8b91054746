package import AuthFlow

extension ProviderRegistry {
    /// Resolves every configured provider with `discovery` as the shared discovery cache: the same as
    /// `ProviderRegistry.resolve(_:httpClient:credentials:)` (each `type: oidc` provider is resolved against
    /// `OIDCPlugin.discovered(_:)` for its own issuer, documents fetched once per issuer), for a
    /// caller that keeps its own ``OIDCDiscovery`` (e.g. to refresh or count fetches).
    ///
    /// - Throws: `ConfigurationError` listing every issue found; a failed discovery is a `discovery_failed`
    ///   issue at the provider's `issuer:` key quoting the ``OIDCDiscoveryError``.
    package func resolve(
        _ configuration: Configuration, discovery: OIDCDiscovery, credentials: CredentialRequirement = .values
    ) async throws(ConfigurationError) -> [ResolvedProvider] {
        let preparation = ProviderPreparation(
            httpClient: discovery.httpClient, shared: [OIDCPlugin.discoveryKey: discovery])
        return try await resolve(configuration, preparation: preparation, credentials: credentials)
    }
}
