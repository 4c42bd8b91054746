/// An identity an ``AccountStore`` removed, with the tokens that were stored for it so the caller can
/// revoke them at the provider.
public struct RemovedIdentity: Sendable, Hashable {
    /// The identity as it was stored.
    public let identity: LinkedIdentity
    /// Its tokens, when any were stored.
    public let tokens: StoredTokens?

    /// Creates a value (store implementations use this).
    public init(identity: LinkedIdentity, tokens: StoredTokens?) {
        self.identity = identity
        self.tokens = tokens
    }
}
