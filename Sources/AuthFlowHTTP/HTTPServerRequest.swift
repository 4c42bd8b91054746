/// A complete request received by `HTTPServer` (body fully read, within the size limit).
public struct HTTPServerRequest: Sendable {
    /// The method as sent, e.g. `GET`.
    public let method: String
    /// The path as sent, without the query and with percent-escapes left intact
    /// (e.g. `/auth/google/callback`).
    public let path: String
    /// The query parameters, decoded (`+` and `%XX`), in order; repeated names stay separate.
    public let query: [(String, String)]
    /// The request headers, in order.
    public let headers: HTTPHeaders
    /// The body (empty when there is none).
    public let body: [UInt8]
    /// The client's numeric IP address (IPv4 or IPv6, without port): the peer's, or, when the peer is one of
    /// the server's trusted proxies, the right-most untrusted `X-Forwarded-For` hop.
    public let remoteAddress: String
    /// Whether the request came from one of the server's trusted proxies (`server.trusted_proxies`), whose
    /// headers (`X-Forwarded-For`, `X-Request-Id`) may be believed.
    package let viaTrustedProxy: Bool

    /// A request with the given parts: what an adapter for another HTTP stack builds (see docs/adapters.md).
    ///
    /// - Parameters:
    ///   - method: the request method as sent (`GET`, `POST`, …).
    ///   - path: the request target's path exactly as sent: percent-escapes kept (not decoded), without the
    ///     `?` and the query.
    ///   - query: the query's parameters, decoded, in order.
    ///   - headers: every header field, repeated ones included.
    ///   - body: the complete body (the server never reads more of it).
    ///   - remoteAddress: the client's address, required: rate limits count per address, so an adapter that
    ///     passed one fixed address would put every client in one bucket. Behind a proxy, the address the
    ///     proxy forwarded (with `viaTrustedProxy`), as `server.trusted_proxies` decides.
    ///   - viaTrustedProxy: whether the request came through one of the trusted proxies.
    public init(
        method: String, path: String, query: [(String, String)] = [], headers: HTTPHeaders = [:], body: [UInt8] = [],
        remoteAddress: String, viaTrustedProxy: Bool = false
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
        self.viaTrustedProxy = viaTrustedProxy
    }

    /// The first value of query parameter `name`, or nil.
    package func queryValue(_ name: String) -> String? {
        query.first { $0.0 == name }?.1
    }
}
