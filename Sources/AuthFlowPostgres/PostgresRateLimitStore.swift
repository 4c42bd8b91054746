package import AuthFlowJOSE
package import AuthFlowStores
import Foundation

/// A `RateLimitStore` in a ``PostgresDatabase``: token buckets shared by every instance using the database.
///
/// One bucket is one row keyed by the SHA-256 digest of its key (the key, e.g. a client address, is never
/// written). `consume` is one `INSERT … ON CONFLICT DO UPDATE` that refills the bucket for the time since its
/// last update and takes a token when one is there, so concurrent consumers from any instance serialize on
/// the row and never take the same token twice. A bucket that would be full again is indistinguishable from
/// a missing one, so rows past their `full_at` time are purged opportunistically. Time follows the injected
/// clock.
package struct PostgresRateLimitStore: RateLimitStore {
    /// The database the store reads and writes.
    package let database: PostgresDatabase
    let clock: any WallClock

    /// Creates a store over `database`.
    ///
    /// - Parameters:
    ///   - database: an open database (shareable with the other PostgreSQL stores).
    ///   - clock: the time source for refills.
    package init(database: PostgresDatabase, clock: any WallClock) {
        self.database = database
        self.clock = clock
    }

    /// Takes one token from bucket `key` if one is available.
    ///
    /// - Throws: `StoreError` `invalidValue` for an empty key or a capacity or refill rate that is not a
    ///   positive finite number, `backendFailure`, `busy`.
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
        let parameters: [PostgresValue] = [
            .bytes(Digest.sha256(Array(key.utf8))), .real(capacity), .real(refillPerSecond), .real(now),
        ]
        let row = try await database.perform(operation) { connection throws(StoreError) in
            try connection.transaction(operation: operation) { () throws(StoreError) in
                try connection.run("DELETE FROM rate_limits WHERE full_at <= $1", [.real(now)], operation: operation)
                // The level now is least(capacity, tokens + elapsed × refill) (the repeated `least(…)`); a token is
                // taken when at least one is there. Every expression reads the row as it was before this update.
                return try connection.query(
                    """
                    INSERT INTO rate_limits AS bucket (key_digest, tokens, updated_at, full_at, allowed)
                    VALUES ($1, $2::double precision - 1, $4::double precision, $4 + 1 / $3::double precision, true)
                    ON CONFLICT (key_digest) DO UPDATE SET
                        tokens = least($2, bucket.tokens + greatest(0, $4 - bucket.updated_at) * $3)
                            - (least($2, bucket.tokens + greatest(0, $4 - bucket.updated_at) * $3) >= 1)::int,
                        allowed = least($2, bucket.tokens + greatest(0, $4 - bucket.updated_at) * $3) >= 1,
                        updated_at = $4,
                        full_at = $4 + ($2 - least($2, bucket.tokens + greatest(0, $4 - bucket.updated_at) * $3)
                            + (least($2, bucket.tokens + greatest(0, $4 - bucket.updated_at) * $3) >= 1)::int) / $3
                    RETURNING bucket.tokens, bucket.allowed
                    """, parameters, operation: operation
                ).first
            }
        }
        guard let row else {
            throw StoreError(.corruptData, "expected the bucket's row back, found none", operation: operation)
        }
        let tokens = try row.real(0)
        guard try row.bool(1) else {
            return RateLimitDecision(allowed: false, retryAfter: max(0, (1 - tokens) / refillPerSecond))
        }
        return RateLimitDecision(allowed: true, retryAfter: 0)
    }
}
