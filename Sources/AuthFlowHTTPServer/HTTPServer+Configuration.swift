package import AuthFlowHTTP

extension HTTPServer {
    /// Where and how an `HTTPServer` listens.
    public struct Configuration: Sendable {
        /// A literal IPv4 or IPv6 address (`127.0.0.1`, `::1`, `0.0.0.0`, `::`); `localhost`
        /// means `127.0.0.1`.
        package var host: String
        /// The TCP port; 0 picks a free one (`HTTPServer.start()` returns the one it bound).
        package var port: Int
        /// The largest request body accepted on any route; larger ones get 413. A route policy
        /// (`HTTPRoutePolicy`) lowers it per route; set it to what the largest route needs.
        package var maxBodyBytes: Int
        /// Polling threads; 1 (the default) is enough because handlers never block them.
        package var threads: Int
        /// Seconds a client has to send a whole request, headers and body, counted from the moment the
        /// connection is ready for it (accepted, or the previous response sent); then the connection is
        /// closed, however steadily the client trickles bytes. 0 turns the deadline off.
        package var requestTimeout: Int
        /// Seconds a connection may stay silent before it is closed.
        package var idleTimeout: Int
        /// Open connections overall; new ones beyond it are closed at once.
        package var maxConnections: Int
        /// Open connections per client address (peers in ``trustedProxies`` are exempt: they count against
        /// ``maxConnections`` only); new ones beyond it are closed at once. IPv6 clients are counted by their
        /// network of ``ipv6ClientPrefix`` bits.
        package var maxConnectionsPerClient: Int
        /// The IPv6 prefix length (16–128) that makes one client for ``maxConnectionsPerClient``: one client
        /// usually holds a whole /64, so 64 by default (128 counts each address).
        package var ipv6ClientPrefix: Int
        /// Reverse proxies whose `X-Forwarded-For` is believed: from these peers, a request's
        /// `remoteAddress` is the right-most address in `X-Forwarded-For` that is not itself a trusted proxy.
        package var trustedProxies: [IPNetwork]
        /// Seconds `stop()` waits for in-flight requests before closing connections.
        package var shutdownGracePeriod: Double
        /// Memory per connection, in bytes (libmicrohttpd's per-connection pool, at least 4096): about half of it
        /// holds the request line and headers, the rest the parsed fields and the response headers. A request
        /// whose headers do not fit gets 431 from libmicrohttpd and its connection is closed. libmicrohttpd
        /// zeroes the whole pool after every request, so a larger pool costs time on every request.
        package var connectionMemoryLimit: Int

        /// Defaults: 127.0.0.1, any free port, 64 KiB bodies, one thread, 10 s per request, 30 s idle
        /// timeout, 10 s shutdown grace, 32 KiB per connection (about 16 KiB of request headers), 4096
        /// connections (256 per client, IPv6 clients by /64), no trusted proxies.
        public init(
            host: String = "127.0.0.1", port: Int = 0, maxBodyBytes: Int = 64 * 1024, threads: Int = 1,
            requestTimeout: Int = 10, shutdownGracePeriod: Double = 10, connectionMemoryLimit: Int = 32 * 1024,
            idleTimeout: Int = 30, maxConnections: Int = 4096, maxConnectionsPerClient: Int = 256,
            ipv6ClientPrefix: Int = 64
        ) {
            self.ipv6ClientPrefix = ipv6ClientPrefix
            self.host = host
            self.port = port
            self.maxBodyBytes = maxBodyBytes
            self.threads = threads
            self.requestTimeout = requestTimeout
            self.shutdownGracePeriod = shutdownGracePeriod
            self.connectionMemoryLimit = connectionMemoryLimit
            self.idleTimeout = idleTimeout
            self.maxConnections = maxConnections
            self.maxConnectionsPerClient = maxConnectionsPerClient
            self.trustedProxies = []
        }

        /// This configuration with `proxies` as its trusted proxies.
        package func trusting(_ proxies: [IPNetwork]) -> Self {
            var copy = self
            copy.trustedProxies = proxies
            return copy
        }
    }
}
