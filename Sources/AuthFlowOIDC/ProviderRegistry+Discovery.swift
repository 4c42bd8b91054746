public import AuthFlow

extension ProviderRegistry {
    /// Resolves every configured provider, first fetching the discovery document of each provider whose
    /// plugin is an undiscovered ``AuthFlowOIDC/OIDCPlugin`` (`type: oidc`).
    ///
    /// Each such provider is resolved against ``AuthFlowOIDC/OIDCPlugin/discovered(_:)`` for its own issuer, so several
    /// `type: oidc` providers with different issuers can coexist; every other provider resolves exactly as
    /// with `ProviderRegistry.resolve(_:credentials:)`. Documents are fetched in file order, once per issuer
    /// (``AuthFlowOIDC/OIDCDiscovery`` caches them). All problems are collected before throwing; a failed discovery is a
    /// `discovery_failed` issue at the provider's `issuer:` key quoting the ``AuthFlowOIDC/OIDCDiscoveryError``.
    ///
    /// `credentials` is passed on to resolution (see `ProviderRegistry.resolve(_:credentials:)`).
    ///
    /// - Throws: `ConfigurationError` listing every issue found.
    public func resolve(
        _ configuration: Configuration, discovery: OIDCDiscovery, credentials: CredentialRequirement = .values
    ) async throws(ConfigurationError) -> [ResolvedProvider] {
        var resolved: [ResolvedProvider] = []
        var issues: [ConfigurationIssue] = []
        let publicURL = configuration.server?.publicURL
        for settings in configuration.providers {
            var registry = self
            if let plugin = plugin(forType: settings.type) as? OIDCPlugin, plugin.metadata == nil,
                let issuer = settings.issuer, !issuer.isEmpty
            {
                do throws(OIDCDiscoveryError) {
                    registry.register(plugin.discovered(try await discovery.metadata(for: issuer)))
                } catch {
                    issues.append(
                        ConfigurationIssue(
                            code: OIDCPlugin.discoveryFailed,
                            message: "provider '\(settings.name)' (type \(settings.type)): discovery of issuer "
                                + "'\(issuer)' failed: \(error.description)",
                            location: settings.location(of: "issuer")))
                    continue
                }
            }
            do throws(ConfigurationError) {
                resolved.append(try registry.resolve(settings, publicURL: publicURL, credentials: credentials))
            } catch {
                issues += error.issues
            }
        }
        guard issues.isEmpty else { throw ConfigurationError(issues: issues) }
        return resolved
    }
}
