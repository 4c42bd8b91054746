public import AuthFlow

extension OIDCPlugin {
    /// The key under which ``prepared(for:context:)`` shares one ``OIDCDiscovery`` among the providers of one
    /// resolution (seed it to bring your own).
    package static let discoveryKey = "AuthFlowOIDC.OIDCDiscovery"

    /// An undiscovered plugin fetches the discovery document of the provider's `issuer` (once per issuer and
    /// resolution, through the context's shared ``OIDCDiscovery``) and returns `discovered(_:)`; a plugin
    /// that already carries metadata, or settings without an issuer (reported by resolution), return `self`.
    ///
    /// - Throws: `ConfigurationError` with a `discovery_failed` issue at the provider's `issuer:` key quoting
    ///   the ``OIDCDiscoveryError``.
    public func prepared(for settings: ProviderSettings, context: ProviderPreparation) async throws(ConfigurationError)
        -> any ProviderPlugin
    {
        guard metadata == nil, let issuer = settings.issuer, !issuer.isEmpty else { return self }
        let discovery = context.shared(Self.discoveryKey) { OIDCDiscovery(httpClient: context.httpClient) }
        do throws(OIDCDiscoveryError) {
            return discovered(try await discovery.metadata(for: issuer))
        } catch {
            throw ConfigurationError(issues: [
                ConfigurationIssue(
                    code: Self.discoveryFailed,
                    message: "provider '\(settings.name)' (type \(settings.type)): discovery of issuer '\(issuer)' "
                        + "failed: \(error.description)",
                    location: settings.location(of: "issuer"))
            ])
        }
    }

    /// `true` for an undiscovered plugin: its endpoints, algorithms and client authentication come from the
    /// issuer's discovery document, which only ``prepared(for:context:)`` (the asynchronous resolution) fetches.
    public func requiresPreparation(for settings: ProviderSettings) -> Bool {
        metadata == nil
    }

}
