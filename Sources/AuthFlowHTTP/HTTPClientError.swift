public import AuthFlowJSON

/// Why an `HTTPClient` could not deliver a response. `message` says what was expected and what
/// happened; `url` is the request URL without its query, fragment or user information, so no
/// code, token or credential ever appears in the error.
public struct HTTPClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A stable identifier for the kind of failure.
    public typealias Code = ErrorCode<HTTPClientError>

    /// What went wrong.
    public let code: Code
    /// A human-readable explanation without secrets.
    public let message: String
    /// The request URL without query, fragment or credentials, when known.
    public let url: String?

    /// An error with the given code, message and (redacted) URL.
    public init(code: Code, message: String, url: String? = nil) {
        self.code = code
        self.message = message
        self.url = url
    }

    /// `code: message (url)`.
    public var description: String {
        if let url { return "\(code): \(message) (\(url))" }
        return "\(code): \(message)"
    }

    /// `url` without query, fragment or `user:password@`, safe to show in errors and logs.
    package static func redact(_ url: String) -> String {
        var bytes = Array(url.utf8)
        if let cut = bytes.firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) {
            bytes.removeSubrange(cut...)
        }
        if let schemeEnd = firstIndex(of: Array("://".utf8), in: bytes) {
            let authorityStart = schemeEnd + 3
            let authorityEnd = bytes[authorityStart...].firstIndex(of: UInt8(ascii: "/")) ?? bytes.endIndex
            if let at = bytes[authorityStart..<authorityEnd].lastIndex(of: UInt8(ascii: "@")) {
                bytes.removeSubrange(authorityStart...at)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func firstIndex(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where Array(haystack[start..<start + needle.count]) == needle {
            return start
        }
        return nil
    }
}

extension ErrorCode where Domain == HTTPClientError {
    /// The request did not complete within its timeout (or the connect timeout).
    package static var timeout: Self { Self(rawValue: "timeout") }
    /// The server could not be reached (refused, unreachable, name not resolved, reset).
    package static var connectionFailed: Self { Self(rawValue: "connection_failed") }
    /// The response body exceeded the configured maximum (announced or received).
    package static var responseTooLarge: Self { Self(rawValue: "response_too_large") }
    /// The TLS handshake failed or the server's certificate was not trusted.
    package static var tlsFailure: Self { Self(rawValue: "tls_failure") }
    /// The URL could not be parsed.
    package static var invalidURL: Self { Self(rawValue: "invalid_url") }
    /// The URL's scheme is not `http` or `https`.
    package static var unsupportedScheme: Self { Self(rawValue: "unsupported_scheme") }
    /// The request itself is invalid (bad method, header, or timeout value).
    package static var invalidRequest: Self { Self(rawValue: "invalid_request") }
    /// The calling task was cancelled before the response arrived.
    package static var cancelled: Self { Self(rawValue: "cancelled") }
    /// The client was shut down while the request was pending.
    package static var clientShutDown: Self { Self(rawValue: "client_shut_down") }
    /// Any other transfer failure (malformed response, send or receive error).
    package static var transferFailed: Self { Self(rawValue: "transfer_failed") }
}
