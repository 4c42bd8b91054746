/// A complete response received by an `HTTPClient`.
public struct HTTPClientResponse: Sendable {
    /// The status code (e.g. 200, 302, 400).
    public let status: Int
    /// The response headers of the final response, in order.
    public let headers: HTTPHeaders
    /// The body, at most the client's configured maximum.
    public let body: [UInt8]

    /// A response with the given parts (used by the client, and by fakes in tests).
    public init(status: Int, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The body decoded as UTF-8 (invalid sequences replaced).
    package var bodyText: String { String(decoding: body, as: UTF8.self) }
}
