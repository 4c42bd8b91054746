/// The provider plugins an application knows, keyed by the `type:` they answer to.
///
/// A value type: copy `standard` (in `AuthFlowProviders`) and ``register(_:)`` your own plugins.
public struct ProviderRegistry: Sendable {
    private var plugins: [String: any ProviderPlugin] = [:]

    /// An empty registry.
    public init() {}

    /// A registry holding `plugins` (a later plugin with the same type replaces an earlier one).
    package init(_ plugins: [any ProviderPlugin]) {
        for plugin in plugins { register(plugin) }
    }

    /// Adds `plugin`, replacing any plugin registered for the same type.
    public mutating func register(_ plugin: any ProviderPlugin) {
        plugins[plugin.type] = plugin
    }

    /// The plugin for `type`, or `nil`.
    package func plugin(forType type: String) -> (any ProviderPlugin)? {
        plugins[type]
    }

    /// Every registered type, sorted.
    package var types: [String] { plugins.keys.sorted() }
}
