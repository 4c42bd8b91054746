/// A response for `HTTPServer` to send.
public struct HTTPServerResponse: Sendable {
    /// The status code.
    public var status: Int
    /// The headers; `Set-Cookie` may repeat. `Content-Length` is computed by the server.
    public var headers: HTTPHeaders
    /// The body.
    public var body: [UInt8]

    /// A response with the given parts.
    public init(status: Int = 200, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A `text/plain; charset=utf-8` response.
    public static func text(_ text: String, status: Int = 200) -> HTTPServerResponse {
        HTTPServerResponse(
            status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: Array(text.utf8))
    }

    /// A `text/html; charset=utf-8` response.
    public static func html(_ html: String, status: Int = 200) -> HTTPServerResponse {
        HTTPServerResponse(
            status: status, headers: ["Content-Type": "text/html; charset=utf-8"], body: Array(html.utf8))
    }

    /// An `application/json` response from serialized JSON bytes.
    public static func json(_ bytes: [UInt8], status: Int = 200) -> HTTPServerResponse {
        HTTPServerResponse(status: status, headers: ["Content-Type": "application/json"], body: bytes)
    }

    /// An `application/json` response from serialized JSON text.
    public static func json(_ text: String, status: Int = 200) -> HTTPServerResponse {
        json(Array(text.utf8), status: status)
    }

    /// A redirect (302 by default; 303 after a POST) to `location`.
    public static func redirect(to location: String, status: Int = 302) -> HTTPServerResponse {
        HTTPServerResponse(status: status, headers: ["Location": location])
    }

    /// A response without body (e.g. 204).
    public static func empty(status: Int = 204) -> HTTPServerResponse {
        HTTPServerResponse(status: status)
    }

    /// A JSON error body `{"error": code, "message": message}` with the given status. `code`
    /// and `message` are escaped; never put a secret in either.
    public static func error(_ code: String, message: String, status: Int) -> HTTPServerResponse {
        json("{\"error\":\(jsonString(code)),\"message\":\(jsonString(message))}", status: status)
    }

    /// Adds one `Set-Cookie` header (several stay separate header lines).
    public mutating func addCookie(_ setCookie: String) {
        headers.add("Set-Cookie", setCookie)
    }

    /// A JSON string literal for `text`.
    static func jsonString(_ text: String) -> String {
        var out: [UInt8] = [UInt8(ascii: "\"")]
        let hex = Array("0123456789abcdef".utf8)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x0A: out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0D: out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0x09: out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0..<0x20:
                out += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
        return String(decoding: out, as: UTF8.self)
    }
}
