/// The key of a linked identity: the configured provider name and the provider's subject.
///
/// A `(provider, subject)` pair belongs to at most one user.
public struct IdentityKey: Sendable, Hashable, CustomStringConvertible {
    /// The configured provider name (`providers.<name>`), e.g. `"apple"`.
    public let provider: String
    /// The provider's stable subject identifier.
    public let subject: String

    /// Creates a key.
    public init(provider: String, subject: String) {
        self.provider = provider
        self.subject = subject
    }

    /// `provider:subject`.
    public var description: String { "\(provider):\(subject)" }
}
