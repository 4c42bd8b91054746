public import AuthFlowJOSE

/// The account, session and flow stores kept in process memory: what a test or a single-instance trial
/// opens where a deployment opens `SQLiteStores`, `PostgresStores` or `RedisStores`.
///
/// Everything is lost when the process ends; tokens are held in memory, not encrypted. Each store is an
/// actor, so each operation runs alone and is atomic like a transaction. Timestamps and expiry follow the
/// injected clock.
public struct MemoryStores: Sendable {
    /// Users, linked identities, provider tokens, pending profiles and applied notifications.
    public let accounts: any AccountStore
    /// Sessions, keyed by the SHA-256 digest of their id.
    public let sessions: any SessionStore
    /// The spent states of sign-in callbacks (at most 100,000 live at once).
    public let flows: any FlowStore

    /// Opens three empty stores.
    ///
    /// - Parameter clock: the time source for timestamps and expiry.
    public init(clock: any WallClock) {
        accounts = InMemoryAccountStore(clock: clock)
        sessions = InMemorySessionStore(clock: clock)
        flows = InMemoryFlowStore(clock: clock)
    }
}
