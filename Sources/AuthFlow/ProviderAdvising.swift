/// A plugin with advice of its own about one provider's settings, which reports such as `authflow matrix`
/// list with the capability advice (Microsoft: a tenant open to every organization).
public protocol ProviderAdvising: ProviderPlugin {
    /// What is weak in `provider`'s settings and what to change; empty when nothing is.
    func advice(for provider: ResolvedProvider) -> [ProviderAdvice]
}

/// One finding of a ``ProviderAdvising`` plugin.
public struct ProviderAdvice: Sendable, Hashable {
    /// A stable snake_case code, e.g. `any_tenant`.
    public let code: String
    /// What was found.
    public let finding: String
    /// The YAML key to change.
    public let key: String
    /// How to change it, after the key.
    public let change: String

    /// Creates a finding.
    public init(code: String, finding: String, key: String, change: String) {
        self.code = code
        self.finding = finding
        self.key = key
        self.change = change
    }
}
