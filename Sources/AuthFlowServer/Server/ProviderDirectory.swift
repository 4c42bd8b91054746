import AuthFlow

/// The server's one directory of configured providers: by name, and their names in configuration order. Built
/// once per server; every route, the request log and the route policy look providers up here.
final class ProviderDirectory: Sendable {
    /// The configured providers, by name.
    let byName: [String: ResolvedProvider]
    /// Provider names in configuration order.
    let names: [String]

    init(_ providers: [ResolvedProvider]) {
        self.byName = Dictionary(providers.map { ($0.name, $0) }, uniquingKeysWith: { _, last in last })
        self.names = providers.map(\.name)
    }

    /// The provider called `name`, or `nil`.
    subscript(name: String) -> ResolvedProvider? { byName[name] }

    /// Whether a provider called `name` is configured (looked up by key only: its settings are not copied out).
    func contains(_ name: String) -> Bool { byName.index(forKey: name) != nil }

    /// The provider called `name`.
    ///
    /// - Throws: ``ServerError`` `unknown_provider` (400).
    func provider(_ name: String) throws(ServerError) -> ResolvedProvider {
        guard let provider = byName[name] else { throw SignInServer.unknownProvider }
        return provider
    }

    /// Checks that a provider called `name` is configured, without copying its settings out.
    ///
    /// - Throws: ``ServerError`` `unknown_provider` (400).
    func require(_ name: String) throws(ServerError) {
        guard contains(name) else { throw SignInServer.unknownProvider }
    }
}
