extension SignIn {
    /// The sign-in flow's tunables, for ``SignIn`` and ``TokenOperations`` (and the server's `flow` options).
    public struct Options: Sendable, Hashable {
        /// Seconds a flow lives between redirect and callback (default 10 minutes); also how long its state
        /// stays in the spent-state set.
        public var flowTTL: Double
        /// Clock-skew leeway for `exp`, `nbf` and `iat` in seconds (default 60).
        public var leeway: Double
        /// Lifetime of a minted client-secret JWT in seconds (default 300; Apple allows up to 15,777,000).
        public var clientSecretLifetime: Int64

        /// Creates options; the defaults are the hardened ones.
        public init(flowTTL: Double = 600, leeway: Double = 60, clientSecretLifetime: Int64 = 300) {
            self.flowTTL = flowTTL
            self.leeway = leeway
            self.clientSecretLifetime = clientSecretLifetime
        }
    }
}
