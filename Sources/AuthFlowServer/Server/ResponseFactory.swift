import AuthFlowHTTP
import AuthFlowJOSE
import Foundation

/// Builds the server's responses: JSON or HTML errors by content negotiation, and the security headers
/// every response carries.
enum ResponseFactory {
    /// The error as `{"error", "message"}` JSON, or as a small HTML page when `accept` prefers text/html.
    static func error(_ error: ServerError, accept: String?) -> HTTPServerResponse {
        var response: HTTPServerResponse
        if prefersHTML(accept) {
            let body = """
                <h1>Sign-in problem</h1>
                <p class="error"><code id="error-code">\(HTML.escape(error.code.rawValue))</code></p>
                <p id="error-message">\(HTML.escape(error.message))</p>
                <p><a href="/">Back</a></p>
                """
            response = .html(HTML.serverPage(title: "Sign-in problem", body: body), status: error.status)
            response.headers["Content-Security-Policy"] = HTML.contentSecurityPolicy
        } else {
            response = .error(error.code.rawValue, message: error.message, status: error.status)
        }
        response.headers["Cache-Control"] = "no-store"
        return response
    }

    /// A JSON response with `Cache-Control: no-store`.
    static func json(_ value: JSONValue, status: Int = 200) -> HTTPServerResponse {
        var response = HTTPServerResponse.json(value.serialized(), status: status)
        response.headers["Cache-Control"] = "no-store"
        return response
    }

    /// An HTML page with a strict CSP and `Cache-Control: no-store`.
    static func html(_ page: String, status: Int = 200, csp: String = HTML.contentSecurityPolicy)
        -> HTTPServerResponse
    {
        var response = HTTPServerResponse.html(page, status: status)
        response.headers["Content-Security-Policy"] = csp
        response.headers["Cache-Control"] = "no-store"
        return response
    }

    /// The headers every response gets unless the handler set them, in the order they are added.
    static let securityHeaders: [(String, String)] = [
        ("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "same-origin"), ("X-Frame-Options", "DENY"),
        ("Cache-Control", "no-store"),
    ]

    /// Adds headers every response gets (unless the handler set them), in place: the response's fields are
    /// extended, not copied.
    static func secure(_ response: inout HTTPServerResponse) {
        // Appending a missing field is what setting it would do (a new name goes at the end), minus a second
        // search of the fields.
        let framable = allowsFraming(response)
        for (name, value) in securityHeaders where !response.headers.contains(name) {
            // Only a page whose own policy names the origins that may frame it (front-channel logout: the
            // issuer's) goes without `DENY`, which would forbid the framing that policy allows.
            if framable && name == "X-Frame-Options" { continue }
            response.headers.add(name, value)
        }
    }

    /// Whether the response's `Content-Security-Policy` has a `frame-ancestors` directive naming some origin
    /// (anything but `'none'`).
    static func allowsFraming(_ response: HTTPServerResponse) -> Bool {
        guard let policy = response.headers["Content-Security-Policy"] else { return false }
        for directive in policy.split(separator: ";") {
            let parts = directive.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard parts.first?.lowercased() == "frame-ancestors" else { continue }
            return parts.dropFirst().contains { $0 != "'none'" }
        }
        return false
    }

    /// `scheme://host[:port]` of an absolute http(s) URL (the form `frame-ancestors` names an origin in), `nil`
    /// for anything else.
    static func origin(of url: String) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            scheme == "https" || scheme == "http", let host = components.host, !host.isEmpty,
            host.allSatisfy({
                $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == ":" || $0 == "[" || $0 == "]"
            })
        else { return nil }
        return "\(scheme)://\(host)" + (components.port.map { ":\($0)" } ?? "")
    }

    /// Whether `Accept` ranks text/html above application/json (browsers' navigation Accept does;
    /// `*/*`, missing or JSON-first headers do not).
    static func prefersHTML(_ accept: String?) -> Bool {
        guard let accept, !accept.isEmpty else { return false }
        var html = 0.0
        var json = 0.0
        var htmlSpecific = 0
        var jsonSpecific = 0
        for range in accept.split(separator: ",").prefix(32) {
            let parts = range.split(separator: ";")
            guard let type = parts.first?.trimmingCharacters() else { continue }
            var quality = 1.0
            for parameter in parts.dropFirst() {
                let pair = parameter.trimmingCharacters()
                if pair.hasPrefix("q="), let value = Double(pair.dropFirst(2)), value.isFinite {
                    quality = min(max(value, 0), 1)
                }
            }
            let specificity: Int
            switch type.lowercased() {
            case "text/html", "application/xhtml+xml": specificity = 3
            case "text/*": specificity = 2
            case "*/*": specificity = 1
            default: specificity = 0
            }
            if specificity > htmlSpecific || (specificity == htmlSpecific && specificity > 0 && quality > html) {
                htmlSpecific = specificity
                html = quality
            }
            let jsonSpecificity: Int
            switch type.lowercased() {
            case "application/json": jsonSpecificity = 3
            case "application/*": jsonSpecificity = 2
            case "*/*": jsonSpecificity = 1
            default: jsonSpecificity = 0
            }
            if jsonSpecificity > jsonSpecific
                || (jsonSpecificity == jsonSpecific && jsonSpecificity > 0 && quality > json)
            {
                jsonSpecific = jsonSpecificity
                json = quality
            }
        }
        return html > json
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs.
    func trimmingCharacters() -> String {
        var slice = Substring(self)
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return String(slice)
    }
}
