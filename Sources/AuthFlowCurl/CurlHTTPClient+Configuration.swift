extension CurlHTTPClient {
    /// Settings shared by every request of a `CurlHTTPClient`.
    public struct Configuration: Sendable {
        /// Total time allowed for a request, in seconds, when the request sets none.
        package var defaultTimeout: Double
        /// Time allowed to establish the connection (TCP and TLS), in seconds.
        package var connectTimeout: Double
        /// The largest response body accepted, in bytes; larger ones fail with `responseTooLarge`.
        package var maxResponseBytes: Int
        /// The `User-Agent` sent when the request has none.
        package var userAgent: String
        /// The most connections the client's transfer thread keeps open to one host at a time (further
        /// requests wait); requests run on HTTP handler threads add at most four (see ``CurlHTTPClient``).
        package var maxConnectionsPerHost: Int
        /// A proxy URL to use; nil (the default) uses none, whatever the environment says.
        package var proxy: String?
        /// A PEM file of trusted CA certificates replacing the system store; nil uses the system's.
        package var caBundlePath: String?

        /// Defaults: 10 s per request, 5 s to connect, 1 MiB responses, 8 connections per host.
        public init(
            defaultTimeout: Double = 10, connectTimeout: Double = 5, maxResponseBytes: Int = 1 << 20,
            userAgent: String = "AuthFlow", maxConnectionsPerHost: Int = 8, proxy: String? = nil,
            caBundlePath: String? = nil
        ) {
            self.defaultTimeout = defaultTimeout
            self.connectTimeout = connectTimeout
            self.maxResponseBytes = maxResponseBytes
            self.userAgent = userAgent
            self.maxConnectionsPerHost = maxConnectionsPerHost
            self.proxy = proxy
            self.caBundlePath = caBundlePath
        }
    }
}
