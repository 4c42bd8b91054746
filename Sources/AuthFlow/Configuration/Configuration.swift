/// A loaded `providers.yaml`: every section, interpolated and checked against the schema.
///
/// Produced by ``ConfigurationLoader``; whether each provider's `type` and capability requests are
/// supported is decided later, against the provider plugins. The core reads `providers:`; the other
/// sections (`server:`, `store:`, `sandbox:`) are read by the modules that own them, which add their typed
/// accessors (`configuration.server` in AuthFlowServer, `.store` and `.sandbox` in AuthFlowDeployment).
public struct Configuration: Sendable, Hashable {
    /// `providers:`, in file order.
    public let providers: [ProviderSettings]
    /// The URL browsers reach the sign-in routes at (`server.public_url`), without a trailing slash; `nil` when
    /// no section gave one. The default redirect URI of every provider derives from it.
    package var publicURL: String?
    /// The path the sign-in routes live under (`server.path_prefix`); default ``defaultPathPrefix``.
    package var pathPrefix: String = Configuration.defaultPathPrefix
    /// The files secrets were read from, in reading order (see ``secretFilePermissionWarnings(permissions:)``).
    package var secretFiles: [SecretFile] = []
    /// The other sections' values, by key.
    package var sections: [String: ConfigurationSectionValue] = [:]

    /// `/auth`, the prefix of the sign-in routes unless `server.path_prefix` says otherwise.
    @usableFromInline package static let defaultPathPrefix = "/auth"

    /// Creates a configuration of `providers` (set ``publicURL`` for their default redirect URIs).
    package init(providers: [ProviderSettings]) {
        self.providers = providers
    }

    /// The value of the section `key`, if it was given and is a `T`.
    package func section<T: Hashable & Sendable>(_ key: String, as type: T.Type = T.self) -> T? {
        sections[key]?.value.base as? T
    }

    /// Sets (or, with `nil`, removes) the value of the section `key`.
    package mutating func setSection(_ key: String, _ value: (some Hashable & Sendable)?) {
        sections[key] = value.map(ConfigurationSectionValue.init)
    }

    /// The provider called `name`, if any.
    package func provider(named name: String) -> ProviderSettings? {
        providers.first { $0.name == name }
    }

    /// The redirect URI of `provider`: its `redirect_uri`, else one derived from ``publicURL``;
    /// `nil` when neither is known.
    package func redirectURI(for provider: ProviderSettings) -> String? {
        if let uri = provider.redirectURI { return uri }
        return publicURL.map { provider.redirectURI(publicURL: $0, pathPrefix: pathPrefix) }
    }
}
