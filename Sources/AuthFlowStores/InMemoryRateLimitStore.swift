package import AuthFlowJOSE
import Foundation
import Synchronization

/// A ``RateLimitStore`` in process memory with a bounded number of buckets.
///
/// A bucket that has refilled completely holds no information, so it is dropped; when the table is full
/// anyway, full buckets are purged first, and if none is, the least recently touched half goes. A dropped
/// bucket starts full again, which errs on the side of letting requests through, never of refusing them.
package final class InMemoryRateLimitStore: RateLimitStore {
    private struct Bucket {
        var tokens: Double
        var updatedAt: Date
    }

    private let clock: any WallClock
    private let maximumKeys: Int
    private let buckets = Mutex<[String: Bucket]>([:])

    /// Creates an empty store.
    ///
    /// - Parameters:
    ///   - clock: the time source for refills.
    ///   - maximumKeys: the most buckets kept at once (at least 1).
    package init(clock: any WallClock, maximumKeys: Int = 100_000) {
        self.clock = clock
        self.maximumKeys = max(1, maximumKeys)
    }

    /// How many buckets are held.
    package var count: Int { buckets.withLock { $0.count } }

    /// Takes one token from bucket `key` when one is available.
    ///
    /// - Throws: ``StoreError`` `invalid_value` when `capacity` is not at least 1 or `refillPerSecond` is not
    ///   positive and finite.
    package func consume(key: String, capacity: Double, refillPerSecond: Double) throws(StoreError)
        -> RateLimitDecision
    {
        guard capacity.isFinite, capacity >= 1, refillPerSecond.isFinite, refillPerSecond > 0 else {
            throw StoreError(
                .invalidValue,
                "expected a capacity of at least 1 and a positive refill rate, found \(capacity) and \(refillPerSecond)",
                operation: "consume")
        }
        let now = clock.now()
        let maximumKeys = self.maximumKeys
        return buckets.withLock { buckets in
            var bucket = buckets[key] ?? Bucket(tokens: capacity, updatedAt: now)
            let elapsed = max(0, now.timeIntervalSince(bucket.updatedAt))
            bucket.tokens = min(capacity, bucket.tokens + elapsed * refillPerSecond)
            bucket.updatedAt = now
            guard bucket.tokens >= 1 else {
                buckets[key] = bucket
                return RateLimitDecision(allowed: false, retryAfter: (1 - bucket.tokens) / refillPerSecond)
            }
            bucket.tokens -= 1
            if buckets[key] == nil, buckets.count >= maximumKeys {
                Self.evict(
                    &buckets, now: now, capacity: capacity, refillPerSecond: refillPerSecond,
                    maximumKeys: maximumKeys)
            }
            buckets[key] = bucket
            return RateLimitDecision(allowed: true, retryAfter: 0)
        }
    }

    private static func evict(
        _ buckets: inout [String: Bucket], now: Date, capacity: Double, refillPerSecond: Double, maximumKeys: Int
    ) {
        // Buckets idle for a whole refill period of this bucket's kind are full again (close enough for the
        // other kinds: a dropped bucket only ever starts full).
        let refillTime = capacity / refillPerSecond
        buckets = buckets.filter { now.timeIntervalSince($0.value.updatedAt) < refillTime }
        guard buckets.count >= maximumKeys else { return }
        let oldest = buckets.sorted { $0.value.updatedAt < $1.value.updatedAt }.prefix(max(1, buckets.count / 2))
        for (key, _) in oldest { buckets.removeValue(forKey: key) }
    }
}
