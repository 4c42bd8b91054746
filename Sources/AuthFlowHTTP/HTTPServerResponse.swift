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

    /// A JSON error body `{"error": code, "message": message}` with the given status: the body of every
    /// error AuthFlow's own routes answer. `code` and `message` are escaped; never put a secret in either.
    public static func error(_ code: String, message: String, status: Int) -> HTTPServerResponse {
        json(errorBody([("error", code), ("message", message)]), status: status)
    }

    /// OAuth 2.0's error body `{"error": code, "error_description": description}` (RFC 6749 §5.2) with
    /// `Cache-Control: no-store`, for endpoints whose protocol prescribes it (token endpoints, OpenID
    /// back-channel logout).
    package static func oauthError(_ code: String, description: String, status: Int) -> HTTPServerResponse {
        var response = json(errorBody([("error", code), ("error_description", description)]), status: status)
        response.headers["Cache-Control"] = "no-store"
        return response
    }

    /// A JSON object of string members, in the order given. Callers list the names in UTF-8 byte order,
    /// so the bytes are the ones `JSONValue` serializes for the same object.
    static func errorBody(_ members: [(String, String)]) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "{")]
        for (index, (name, value)) in members.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            appendJSONString(name, to: &out)
            out.append(UInt8(ascii: ":"))
            appendJSONString(value, to: &out)
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// Adds one `Set-Cookie` header (several stay separate header lines).
    public mutating func addCookie(_ setCookie: String) {
        headers.add("Set-Cookie", setCookie)
    }

    /// Appends `text` as a JSON string literal, escaped as `JSONValue` escapes it (`\"`, `\\`, `\n`, `\r`,
    /// `\t`, `\b`, `\f`, other control bytes as `\u00XX`; UTF-8 as is). This module has no JOSE, so the
    /// escape is written here once.
    static func appendJSONString(_ text: String, to out: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x0A: out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0D: out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0x09: out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0x08: out += [UInt8(ascii: "\\"), UInt8(ascii: "b")]
            case 0x0C: out += [UInt8(ascii: "\\"), UInt8(ascii: "f")]
            case 0..<0x20:
                out += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
