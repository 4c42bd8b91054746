extension HTTPServer {
    /// Where and how an `HTTPServer` listens.
    public struct Configuration: Sendable {
        /// A literal IPv4 or IPv6 address (`127.0.0.1`, `::1`, `0.0.0.0`, `::`); `localhost`
        /// means `127.0.0.1`.
        public var host: String
        /// The TCP port; 0 picks a free one (see `HTTPServer.port`).
        public var port: Int
        /// The largest request body accepted; larger ones get 413.
        public var maxBodyBytes: Int
        /// Polling threads; 1 (the default) is enough because handlers never block them.
        public var threads: Int
        /// Seconds a connection may stay idle (slow clients included) before it is closed.
        public var requestTimeout: Int
        /// Seconds `stop()` waits for in-flight requests before closing connections.
        public var shutdownGracePeriod: Double
        /// Memory per connection for the request line and headers, in bytes.
        public var connectionMemoryLimit: Int

        /// Defaults: 127.0.0.1, any free port, 1 MiB bodies, one thread, 30 s idle timeout,
        /// 10 s shutdown grace, 64 KiB of headers.
        public init(
            host: String = "127.0.0.1", port: Int = 0, maxBodyBytes: Int = 1 << 20, threads: Int = 1,
            requestTimeout: Int = 30, shutdownGracePeriod: Double = 10, connectionMemoryLimit: Int = 64 * 1024
        ) {
            self.host = host
            self.port = port
            self.maxBodyBytes = maxBodyBytes
            self.threads = threads
            self.requestTimeout = requestTimeout
            self.shutdownGracePeriod = shutdownGracePeriod
            self.connectionMemoryLimit = connectionMemoryLimit
        }
    }
}
