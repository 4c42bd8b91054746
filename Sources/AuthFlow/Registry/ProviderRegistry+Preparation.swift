public import AuthFlowHTTP

extension ProviderRegistry {
    /// Resolves every configured provider after letting a built-in plugin that prepares prepare for it (e.g. the
    /// generic OpenID Connect plugin fetching its issuer's discovery document with `httpClient`).
    ///
    /// Each provider resolves against the plugin its own preparation returned, so several providers of one
    /// type with different settings coexist. Providers are prepared in file order with one shared
    /// preparation context. All problems are collected before throwing, with what the other sections name of
    /// the resolved providers (`ProviderDependentSettings`).
    ///
    /// `credentials` as for ``resolve(_:credentials:)``.
    ///
    /// - Throws: ``ConfigurationError`` listing every issue found.
    public func resolve(
        _ configuration: Configuration, httpClient: any HTTPClient, credentials: CredentialRequirement = .values
    ) async throws(ConfigurationError) -> [ResolvedProvider] {
        try await resolve(
            configuration, preparation: ProviderPreparation(httpClient: httpClient), credentials: credentials)
    }

    /// Resolves every configured provider as ``resolve(_:httpClient:credentials:)`` does, with a given
    /// preparation context (whose shared values a caller may have seeded).
    ///
    /// - Throws: ``ConfigurationError`` listing every issue found.
    package func resolve(
        _ configuration: Configuration, preparation: ProviderPreparation, credentials: CredentialRequirement = .values
    ) async throws(ConfigurationError) -> [ResolvedProvider] {
        var resolved: [ResolvedProvider] = []
        var issues: [ConfigurationIssue] = []
        let publicURL = configuration.publicURL
        let pathPrefix = configuration.pathPrefix
        for settings in configuration.providers {
            var registry = self
            if let plugin = plugin(forType: settings.type) {
                do throws(ConfigurationError) {
                    registry.register(try await plugin.preparedPlugin(for: settings, context: preparation))
                } catch {
                    issues += error.issues
                    continue
                }
            }
            do throws(ConfigurationError) {
                resolved.append(
                    try registry.resolve(
                        settings, publicURL: publicURL, pathPrefix: pathPrefix, credentials: credentials))
            } catch {
                issues += error.issues
            }
        }
        issues += configuration.providerDependentIssues(resolved: resolved)
        guard issues.isEmpty else { throw ConfigurationError(issues: issues) }
        return resolved
    }
}
