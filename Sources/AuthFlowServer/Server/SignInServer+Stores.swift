public import AuthFlow

extension SignInServer {
    /// Where the server keeps its state.
    public struct Stores: Sendable {
        /// The spent states of sign-in callbacks (the flow records themselves travel in flow cookies).
        package var flows: any FlowStore
        /// Users, linked identities, encrypted tokens, pending profiles, applied notifications.
        package var accounts: any AccountStore
        /// Sessions (by the digest of the session cookie).
        package var sessions: any SessionStore
        /// Rate-limit token buckets (per client address).
        package var rateLimits: any RateLimitStore

        /// Wraps the stores; without `rateLimits`, buckets are kept in memory on the system clock.
        public init(
            flows: any FlowStore, accounts: any AccountStore, sessions: any SessionStore,
            rateLimits: (any RateLimitStore)? = nil
        ) {
            self.flows = flows
            self.accounts = accounts
            self.sessions = sessions
            self.rateLimits = rateLimits ?? InMemoryRateLimitStore(clock: SystemClock())
        }

        /// In-memory stores (tests, demos; nothing survives a restart).
        public static func memory(clock: any WallClock) -> Stores {
            Stores(
                flows: InMemoryFlowStore(clock: clock), accounts: InMemoryAccountStore(clock: clock),
                sessions: InMemorySessionStore(clock: clock), rateLimits: InMemoryRateLimitStore(clock: clock))
        }
    }
}
