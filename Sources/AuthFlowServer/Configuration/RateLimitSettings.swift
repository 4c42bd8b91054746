/// `server.rate_limits`: token buckets per client address on sign-in starts and callbacks.
///
/// The defaults are ones an office of hundreds behind one NAT address never reaches: 600 starts and 300
/// callbacks per minute, each with bursts of 100. `server.rate_limits: off` turns them off (for deployments
/// whose proxy limits rates, and for benchmarks).
package struct RateLimitSettings: Sendable, Hashable {
    /// One token bucket: `perMinute` tokens refilled per minute, at most `burst` at once.
    package struct Rule: Sendable, Hashable {
        /// Requests allowed per minute on average.
        package var perMinute: Double
        /// Requests allowed at once before the rate applies.
        package var burst: Double

        /// Creates a rule.
        package init(perMinute: Double, burst: Double) {
            self.perMinute = perMinute
            self.burst = burst
        }
    }

    /// `GET /auth/{provider}/login|register|link` per client address.
    package var starts: Rule
    /// `GET|POST /auth/{provider}/callback` per client address (each costs a provider round trip).
    package var callbacks: Rule

    /// Creates settings; the defaults are 600 starts and 300 callbacks per minute, bursts of 100.
    package init(
        starts: Rule = Rule(perMinute: 600, burst: 100), callbacks: Rule = Rule(perMinute: 300, burst: 100)
    ) {
        self.starts = starts
        self.callbacks = callbacks
    }
}
