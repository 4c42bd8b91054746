public import AuthFlow
import AuthFlowJOSE

/// The stores AuthFlow keeps in Redis over one ``RedisClient``: sessions, spent sign-in states and rate-limit
/// token buckets, shared by every instance using the same server and key prefix. Accounts stay in PostgreSQL
/// or SQLite.
public struct RedisStores: Sendable {
    /// Sessions, indexed by user and identity; keys name only digests of session ids.
    public let sessions: any SessionStore
    /// The spent states of sign-in callbacks (`SET … NX`).
    public let flows: any FlowStore
    /// Rate-limit token buckets (one Lua script per take).
    public let rateLimits: any RateLimitStore

    /// Opens the stores over `client`, with `clock` for expiry.
    public init(client: RedisClient, clock: any WallClock) {
        sessions = RedisSessionStore(client: client, clock: clock)
        flows = RedisFlowStore(client: client, clock: clock)
        rateLimits = RedisRateLimitStore(client: client, clock: clock)
    }
}
