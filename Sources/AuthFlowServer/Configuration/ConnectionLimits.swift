/// `server.limits`: what one client may hold of the HTTP listener.
package struct ConnectionLimits: Sendable, Hashable {
    /// Open connections overall (default 4096); beyond it new connections are closed at once.
    package var maxConnections: Int
    /// Open connections per client address (default 256); connections from `server.trusted_proxies` count
    /// against ``maxConnections`` only.
    package var maxConnectionsPerClient: Int
    /// Seconds a client has to send a whole request, headers and body (default 10).
    package var requestTimeout: Int
    /// Seconds a connection may stay silent before it is closed (default 30).
    package var idleTimeout: Int
    /// The IPv6 prefix length (16–128) that makes one client for ``maxConnectionsPerClient`` and the rate limits
    /// (default 64: one client usually holds a whole /64).
    package var ipv6Prefix: Int

    /// Creates limits; the defaults are 4096 connections, 256 per client, 10 s per request, 30 s idle, IPv6
    /// clients by /64.
    package init(
        maxConnections: Int = 4096, maxConnectionsPerClient: Int = 256, requestTimeout: Int = 10,
        idleTimeout: Int = 30, ipv6Prefix: Int = 64
    ) {
        self.ipv6Prefix = ipv6Prefix
        self.maxConnections = maxConnections
        self.maxConnectionsPerClient = maxConnectionsPerClient
        self.requestTimeout = requestTimeout
        self.idleTimeout = idleTimeout
    }
}
