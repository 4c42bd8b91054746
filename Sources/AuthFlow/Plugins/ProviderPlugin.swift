/// One kind of provider (a `type:` in `providers.yaml`): a description plus a few small strategies.
///
/// A plugin supplies a ``ProviderDescription`` (a value: type, endpoints, issuer, defaults) and strategies for
/// what differs from the common flow; the core runs the flow. Only ``about``, ``support(for:settings:)``
/// and ``tokenEndpoint`` have no default, so an application's own plugin is a few lines:
///
/// ```swift
/// struct CorpPlugin: ProviderPlugin {
///     var about: ProviderDescription {
///         ProviderDescription(
///             type: "corp",
///             endpoints: ProviderEndpoints(authorization: "https://sso.corp.example/authorize",
///                                          token: "https://sso.corp.example/token",
///                                          userinfo: "https://sso.corp.example/me"))
///     }
///     func support(for capability: Capability, settings: ProviderSettings) -> CapabilitySupport {
///         capability == .pkce ? .required : .unsupported(reason: "Corp SSO is plain OAuth 2.0")
///     }
///     var tokenEndpoint: any TokenEndpointStrategy { StandardTokenEndpoint(.clientSecretBasic) }
/// }
/// var registry = ProviderRegistry.standard
/// registry.register(CorpPlugin())
/// ```
///
/// A strategy is any value conforming to its protocol; the plugin type may conform itself and return `self`.
public protocol ProviderPlugin: Sendable {
    /// What the provider is: type, endpoints, issuer, defaults and flags.
    var about: ProviderDescription { get }

    /// How the provider supports `capability`; may depend on the settings (Apple requires `form_post` when
    /// the `name` or `email` scope is requested).
    func support(for capability: Capability, settings: ProviderSettings) -> CapabilitySupport

    /// How tokens and profiles become an identity; ``StandardIdentity`` by default.
    var identity: any IdentityStrategy { get }

    /// How the client authenticates at the token endpoint and the provider's token-endpoint departures.
    var tokenEndpoint: any TokenEndpointStrategy { get }

    /// The provider's server-to-server events; `nil`, the default, when it sends none.
    var events: (any ProviderEventHandling)? { get }

    /// Further checks of the settings (e.g. that a private key parses); returns every problem found. None by
    /// default.
    func validate(_ settings: ProviderSettings, capabilities: Set<Capability>) -> [ConfigurationIssue]
}

extension ProviderPlugin {
    /// ``StandardIdentity``.
    public var identity: any IdentityStrategy { StandardIdentity() }

    /// None.
    public var events: (any ProviderEventHandling)? { nil }

    /// No further checks.
    public func validate(_ settings: ProviderSettings, capabilities: Set<Capability>) -> [ConfigurationIssue] { [] }
}

/// A built-in plugin that is set up per provider before resolution (provider options, discovery, tenants).
/// Not part of the plugin protocol an outside plugin implements: the registry asks for it with `as?`.
package protocol PreparedPlugin: ProviderPlugin {
    /// The plugin's set-up.
    var preparation: any ProviderPreparing { get }
}

/// A built-in plugin with advice on its provider's settings, which reports such as `authflow matrix` and
/// `authflow check` list with the core's advisories. Asked for with `as?`.
package protocol AdvisingPlugin: ProviderPlugin {
    /// What is weak or worth knowing in `provider`'s settings and what to change.
    func advice(for provider: ResolvedProvider) -> [ProviderAdvice]
}
