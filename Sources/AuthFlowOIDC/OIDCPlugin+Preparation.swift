import AuthFlow

extension OIDCPlugin {
    /// The key under which `prepared(for:context:)` shares one `OIDCDiscovery` among the providers of one
    /// resolution (seed it to bring your own).
    package static let discoveryKey = "AuthFlowOIDC.OIDCDiscovery"
}

/// Discovery: an undiscovered `OIDCPlugin` is prepared by fetching its issuer's document.
struct OIDCPreparation: ProviderPreparing {
    /// The plugin to prepare.
    let plugin: OIDCPlugin

    /// The plugin itself: its `type` and userinfo policy come from the application, not from options.
    func configured(with options: ProviderOptions) throws(ConfigurationError) -> any ProviderPlugin { plugin }

    /// An undiscovered plugin fetches the discovery document of the provider's `issuer` (once per issuer and
    /// resolution, through the context's shared `OIDCDiscovery`) and returns `discovered(_:)`; a plugin
    /// that already carries metadata, or settings without an issuer (reported by resolution), return the plugin unchanged.
    ///
    /// - Throws: `ConfigurationError` with a `discovery_failed` issue at the provider's `issuer:` key quoting
    ///   the `OIDCDiscoveryError`.
    func prepared(for settings: ProviderSettings, context: ProviderPreparation) async throws(ConfigurationError)
        -> any ProviderPlugin
    {
        guard plugin.metadata == nil, let issuer = settings.issuer, !issuer.isEmpty else { return plugin }
        let discovery = context.shared(OIDCPlugin.discoveryKey) { OIDCDiscovery(httpClient: context.httpClient) }
        do throws(OIDCDiscoveryError) {
            return plugin.discovered(try await discovery.metadata(for: issuer))
        } catch {
            throw ConfigurationError(issues: [
                ConfigurationIssue(
                    code: OIDCPlugin.discoveryFailed,
                    message: "provider '\(settings.name)' (type \(settings.type)): discovery of issuer '\(issuer)' "
                        + "failed: \(error.description)",
                    location: settings.location(of: "issuer"))
            ])
        }
    }

    /// `true` for an undiscovered plugin: its endpoints, algorithms and client authentication come from the
    /// issuer's discovery document, which only `prepared(for:context:)` (the asynchronous resolution) fetches.
    func requiresPreparation(for settings: ProviderSettings) -> Bool {
        plugin.metadata == nil
    }
}
