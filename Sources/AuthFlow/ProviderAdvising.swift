/// A plugin with advice about how one resolved provider is configured, shown by `authflow matrix` next to the
/// core's own advisories (e.g. PKCE forced on an issuer that does not advertise it).
public protocol ProviderAdvising: ProviderPlugin {
    /// The advice for `provider`; empty when there is none.
    func advice(for provider: ResolvedProvider) -> [ProviderAdvice]
}

/// One note a plugin gives about a resolved provider.
public struct ProviderAdvice: Sendable, Hashable {
    /// A stable snake_case identifier of the rule.
    public let code: String
    /// What was found.
    public let finding: String
    /// What to do about it.
    public let change: String

    /// Creates advice.
    public init(code: String, finding: String, change: String) {
        self.code = code
        self.finding = finding
        self.change = change
    }
}
