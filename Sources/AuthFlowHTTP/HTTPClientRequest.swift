import Foundation

/// A request for an `HTTPClient`: method, absolute `http(s)` URL, headers, optional body and
/// optional per-request timeout.
public struct HTTPClientRequest: Sendable {
    /// The method, e.g. `GET` or `POST` (an HTTP token; anything else is refused when sent).
    public var method: String
    /// The absolute URL; only `http` and `https` are accepted.
    public var url: String
    /// The request headers.
    public var headers: HTTPHeaders
    /// The body, or nil for none.
    public var body: [UInt8]?
    /// The total time allowed for this request in seconds; nil uses the client's default.
    public var timeout: Double?

    /// A request with the given parts and the client's default timeout.
    public init(method: String = "GET", url: String, headers: HTTPHeaders = [:], body: [UInt8]? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = nil
    }

    /// A `POST` whose body is `fields` encoded as `application/x-www-form-urlencoded`.
    package static func form(url: String, fields: [(String, String)]) -> HTTPClientRequest {
        HTTPClientRequest(
            method: "POST", url: url,
            headers: ["Content-Type": "application/x-www-form-urlencoded"],
            body: Array(FormURLEncoding.encode(fields).utf8))
    }

    /// A request (default `POST`) whose body is the given JSON text, sent as `application/json`.
    package static func json(url: String, body: [UInt8], method: String = "POST") -> HTTPClientRequest {
        HTTPClientRequest(method: method, url: url, headers: ["Content-Type": "application/json"], body: body)
    }

    /// Sets `Authorization: Basic …` as RFC 6749 §2.3.1 requires for client credentials: the
    /// user (client id) and password (client secret) are each form-urlencoded, joined with `:`,
    /// and the result is base64-encoded.
    package mutating func setBasicAuthorization(user: String, password: String) {
        let credentials = FormURLEncoding.escape(user) + ":" + FormURLEncoding.escape(password)
        headers["Authorization"] = "Basic " + Data(credentials.utf8).base64EncodedString()
    }

    /// Sets `Authorization: Bearer <token>` (RFC 6750 §2.1).
    public mutating func setBearer(_ token: String) {
        headers["Authorization"] = "Bearer " + token
    }
}
