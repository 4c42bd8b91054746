package import AuthFlowJOSE
package import AuthFlowStores
import Foundation

/// A `RateLimitStore` in Redis: token buckets shared by every instance using the same server and prefix.
///
/// A bucket is a hash at `<prefix>rate:<digest of key>` (the key itself, e.g. a client address, is never
/// written); one Lua script refills it for the time since its last update and takes a token, atomically. The
/// hash expires once the bucket would be full again. Time follows the injected clock.
package struct RedisRateLimitStore: RateLimitStore {
    /// The client the store uses.
    package let client: RedisClient
    let clock: any WallClock

    /// Creates a store.
    ///
    /// - Parameters:
    ///   - client: the Redis connection pool (shareable with the other Redis stores).
    ///   - clock: the time source for refills.
    package init(client: RedisClient, clock: any WallClock) {
        self.client = client
        self.clock = clock
    }

    static let script = """
        local capacity = tonumber(ARGV[1])
        local refill = tonumber(ARGV[2])
        local now = tonumber(ARGV[3])
        local state = redis.call('HMGET', KEYS[1], 'tokens', 'updated')
        local tokens = tonumber(state[1])
        local updated = tonumber(state[2])
        if tokens == nil or updated == nil then
            tokens = capacity
            updated = now
        end
        local level = math.min(capacity, tokens + math.max(0, now - updated) * refill)
        local allowed = 0
        if level >= 1 then
            level = level - 1
            allowed = 1
        end
        redis.call('HSET', KEYS[1], 'tokens', string.format('%.17g', level), 'updated', ARGV[3])
        redis.call('PEXPIRE', KEYS[1], math.ceil((capacity - level) / refill * 1000) + 1000)
        return {allowed, string.format('%.17g', level)}
        """

    /// Takes one token from bucket `key` if one is available.
    ///
    /// - Throws: `StoreError` `invalidValue` for an empty key or a capacity or refill rate that is not a
    ///   positive finite number, `backendFailure`.
    package func consume(key: String, capacity: Double, refillPerSecond: Double) async throws(StoreError)
        -> RateLimitDecision
    {
        let operation = "consume"
        try StoreValidation.checkKey(key, "rate-limit key", operation: operation)
        guard capacity.isFinite, capacity >= 1, refillPerSecond.isFinite, refillPerSecond > 0 else {
            throw StoreError(
                .invalidValue,
                "expected a capacity of at least 1 and a positive refill rate, found \(capacity) and \(refillPerSecond)",
                operation: operation)
        }
        let now = clock.now().timeIntervalSince1970
        let reply = try await client.command(
            [
                Array("EVAL".utf8), Array(Self.script.utf8), Array("1".utf8),
                client.key("rate", digest: Digest.sha256(Array(key.utf8))), Array(String(capacity).utf8),
                Array(String(refillPerSecond).utf8), Array(String(now).utf8),
            ], operation: operation)
        guard case .array(let values) = reply, values.count == 2, let allowed = values[0].integer,
            let levelBytes = values[1].bytes, let level = Double(String(decoding: levelBytes, as: UTF8.self))
        else {
            throw StoreError(
                .corruptData, "expected the bucket's state back, found another reply", operation: operation)
        }
        guard allowed == 1 else {
            return RateLimitDecision(allowed: false, retryAfter: max(0, (1 - level) / refillPerSecond))
        }
        return RateLimitDecision(allowed: true, retryAfter: 0)
    }
}
