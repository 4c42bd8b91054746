/// A loaded `providers.yaml`: every section, interpolated and checked against the schema.
///
/// Produced by ``ConfigurationLoader``; whether each provider's `type` and capability requests are
/// supported is decided later, against the provider plugins.
public struct Configuration: Sendable, Hashable {
    /// `server:`, when present (needed by `authflow serve`).
    public let server: ServerSettings?
    /// `sandbox:`, when present.
    public let sandbox: SandboxSettings?
    /// `store:`, defaults filled in.
    public let store: StoreSettings
    /// `providers:`, in file order.
    public let providers: [ProviderSettings]
    /// The files secrets were read from, in reading order (see ``secretFilePermissionWarnings(permissions:)``).
    public var secretFiles: [SecretFile] = []

    /// Creates a configuration.
    public init(
        server: ServerSettings? = nil, sandbox: SandboxSettings? = nil, store: StoreSettings = StoreSettings(),
        providers: [ProviderSettings]
    ) {
        self.server = server
        self.sandbox = sandbox
        self.store = store
        self.providers = providers
    }

    /// The provider called `name`, if any.
    public func provider(named name: String) -> ProviderSettings? {
        providers.first { $0.name == name }
    }

    /// The redirect URI of `provider`: its `redirect_uri`, else one derived from `server.public_url`;
    /// `nil` when neither is known.
    public func redirectURI(for provider: ProviderSettings) -> String? {
        if let uri = provider.redirectURI { return uri }
        return server.map { provider.redirectURI(publicURL: $0.publicURL, pathPrefix: $0.pathPrefix) }
    }
}
