/// Token buckets shared by every server instance using the same backend, for rate limits.
public protocol RateLimitStore: Sendable {
    /// Token bucket `key`: takes one token if available. `capacity` = burst, refilled at `refillPerSecond`.
    func consume(key: String, capacity: Double, refillPerSecond: Double) async throws(StoreError) -> RateLimitDecision
}
