/// One finding of a plugin's ``AdvisingPlugin/advice(for:)``.
package struct ProviderAdvice: Sendable, Hashable {
    /// A stable snake_case code, e.g. `any_tenant`.
    package let code: String
    /// What was found.
    package let finding: String
    /// The YAML key to change, when the advice is to set one.
    package let key: String?
    /// What to do about it (after the key, when there is one).
    package let change: String
    /// Whether following it hardens the deployment (a hardening advisory) rather than being a note.
    package let hardening: Bool

    /// Creates a finding.
    package init(code: String, finding: String, key: String? = nil, change: String, hardening: Bool = false) {
        self.code = code
        self.finding = finding
        self.key = key
        self.change = change
        self.hardening = hardening
    }
}
