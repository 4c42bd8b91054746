/// The answer of a ``RateLimitStore``: whether the request may go ahead, and when to retry if not.
public struct RateLimitDecision: Sendable, Hashable {
    /// Whether a token was taken (the request may go ahead).
    public var allowed: Bool
    /// Seconds until a token is available again; `0` when allowed.
    public var retryAfter: Double

    /// Creates a decision.
    public init(allowed: Bool, retryAfter: Double) {
        self.allowed = allowed
        self.retryAfter = retryAfter
    }
}
