/// A plugin with advice of its own about how one resolved provider is configured, which reports such as
/// `authflow matrix` and `authflow check` list with the core's advisories (e.g. PKCE forced on an issuer that
/// does not advertise it; a Microsoft tenant open to every organization).
public protocol ProviderAdvising: ProviderPlugin {
    /// What is weak or worth knowing in `provider`'s settings and what to change; empty when nothing is.
    func advice(for provider: ResolvedProvider) -> [ProviderAdvice]
}

/// One finding of a ``ProviderAdvising`` plugin.
public struct ProviderAdvice: Sendable, Hashable {
    /// A stable snake_case code, e.g. `any_tenant`.
    public let code: String
    /// What was found.
    public let finding: String
    /// The YAML key to change, when the advice is to set one.
    public let key: String?
    /// What to do about it (after the key, when there is one).
    public let change: String
    /// Whether following it hardens the deployment (a hardening advisory) rather than being a note.
    public let hardening: Bool

    /// Creates a finding.
    public init(code: String, finding: String, key: String? = nil, change: String, hardening: Bool = false) {
        self.code = code
        self.finding = finding
        self.key = key
        self.change = change
        self.hardening = hardening
    }
}
