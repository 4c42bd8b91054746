/// How a plugin is set up for one provider before resolution: the provider options it reads (a tenant, a
/// base URL), asynchronous set-up (the generic OpenID Connect plugin fetches the issuer's discovery document)
/// and the form of its tenants. Every requirement has a default when the conforming type is the plugin.
package protocol ProviderPreparing: Sendable {
    /// The provider option keys (`base_url`, `tenant`, …) the plugin reads; setting another is a configuration
    /// error. None by default.
    var optionKeys: Set<String> { get }

    /// The plugin configured with one provider's options, read with ``ProviderOptions``' typed readers;
    /// resolution uses the returned plugin for that provider.
    ///
    /// - Throws: ``ConfigurationError`` with every option of the wrong type or form, at its position.
    func configured(with options: ProviderOptions) throws(ConfigurationError) -> any ProviderPlugin

    /// Whether `settings` can only be resolved after ``prepared(for:context:)``; the synchronous
    /// ``ProviderRegistry/resolve(_:credentials:)`` then refuses the provider with a
    /// `discovery_required` issue naming the asynchronous entry. `false` by default.
    func requiresPreparation(for settings: ProviderSettings) -> Bool

    /// The plugin to resolve one provider's `settings` with, after any asynchronous set-up. Called by
    /// ``ProviderRegistry/resolve(_:httpClient:credentials:)``.
    ///
    /// - Throws: ``ConfigurationError`` naming the provider's settings when the set-up fails.
    func prepared(for settings: ProviderSettings, context: ProviderPreparation) async throws(ConfigurationError)
        -> any ProviderPlugin

    /// How a tenant of this provider is written, for messages (e.g. "a directory (tenant) ID, a GUID"); `nil`,
    /// the default, when the provider has no tenants.
    var tenantForm: String? { get }

    /// Whether `text` is a tenant of this provider as an access rule may name one; `false` by default.
    func isTenant(_ text: String) -> Bool
}

extension ProviderPreparing {
    /// None.
    package var optionKeys: Set<String> { [] }

    /// Resolves without preparation.
    package func requiresPreparation(for settings: ProviderSettings) -> Bool { false }

    /// No tenants.
    package var tenantForm: String? { nil }

    /// No tenants.
    package func isTenant(_ text: String) -> Bool { false }
}

extension ProviderPreparing where Self: ProviderPlugin {
    /// The plugin itself, unchanged.
    package func configured(with options: ProviderOptions) throws(ConfigurationError) -> any ProviderPlugin { self }

    /// No set-up: the plugin itself.
    package func prepared(for settings: ProviderSettings, context: ProviderPreparation) async throws(ConfigurationError)
        -> any ProviderPlugin
    { self }
}
