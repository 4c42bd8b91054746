/// What a JWKS fetch returns to ``JWKSCache``: the body and the `max-age` the server allowed.
package struct JWKSFetchResult: Sendable {
    /// The response body (a JWK Set document).
    package let body: [UInt8]
    /// `Cache-Control: max-age` in seconds, when the response had one.
    package let maxAge: Int?

    /// Wraps a fetched body and its `max-age`.
    package init(body: [UInt8], maxAge: Int?) {
        self.body = body
        self.maxAge = maxAge
    }

    /// Wraps a fetched body, reading `max-age` from a `Cache-Control` header value.
    package init(body: [UInt8], cacheControl: String?) {
        self.init(body: body, maxAge: cacheControl.flatMap(Self.maxAge(cacheControl:)))
    }

    /// The `max-age` directive of a `Cache-Control` value (`no-store`/`no-cache` count as 0).
    package static func maxAge(cacheControl: String) -> Int? {
        var result: Int? = nil
        for directive in cacheControl.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1)
            let name = parts.first.map { $0.trimmingSpaces().lowercased() } ?? ""
            if name == "no-store" || name == "no-cache" { return 0 }
            if name == "max-age", parts.count == 2 {
                var value = parts[1].trimmingSpaces()
                if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 {
                    value = String(value.dropFirst().dropLast())
                }
                if let seconds = Int(value), seconds >= 0 { result = seconds }
            }
        }
        return result
    }
}

extension Substring {
    func trimmingSpaces() -> String {
        String(drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
    }
}
