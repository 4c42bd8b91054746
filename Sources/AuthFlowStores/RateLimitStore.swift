/// What a rate limiter decided for one request.
public struct RateLimitDecision: Sendable, Hashable {
    /// Whether the request may go ahead (a token was taken).
    public var allowed: Bool
    /// Seconds until a token is available again; 0 when `allowed`.
    public var retryAfter: Double

    /// Creates a decision.
    public init(allowed: Bool, retryAfter: Double) {
        self.allowed = allowed
        self.retryAfter = retryAfter
    }
}

/// Token buckets keyed by a string (e.g. `start:` or `callback:` plus a client address), so a shared store
/// (Redis, SQL) can implement them for several server instances.
public protocol RateLimitStore: Sendable {
    /// Token bucket `key`: takes one token if available. `capacity` = burst, refilled at `refillPerSecond`.
    func consume(key: String, capacity: Double, refillPerSecond: Double) async throws(StoreError) -> RateLimitDecision
}
