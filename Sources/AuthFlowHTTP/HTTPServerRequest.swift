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
    public let viaTrustedProxy: Bool

    /// A request with the given parts (the server builds these; tests may too).
    public init(
        method: String, path: String, query: [(String, String)] = [], headers: HTTPHeaders = [:], body: [UInt8] = [],
        remoteAddress: String = "127.0.0.1", viaTrustedProxy: Bool = false
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
    public func queryValue(_ name: String) -> String? {
        query.first { $0.0 == name }?.1
    }
}
