/// Decides whether a `return_to` value may be redirected to (no open redirect).
///
/// `server.allowed_return_to` lists path prefixes (`/`, `/app`) and absolute origins
/// (`https://app.example.com`). A value is accepted when it is
/// - a path starting with a single `/` whose dot segments resolve to a path under an allowed prefix
///   (prefix `/app` admits `/app`, `/app/…`, `/app?…` but not `/application`), or
/// - an absolute `http(s)://` URL whose origin equals an allowed origin exactly (no user info).
///
/// Refused, whatever the list says: `//host` and `/\host` (protocol-relative), other schemes
/// (`javascript:`), backslashes anywhere, percent-encoded slashes, backslashes or dots (`%2f`, `%5c`, `%2e`),
/// control characters, spaces and non-ASCII bytes (browsers drop tabs and newlines, which would turn
/// `/\t/evil` into `//evil`), and values longer than ``maximumLength``.
package struct ReturnToPolicy: Sendable, Hashable {
    /// The longest accepted value in bytes.
    package static let maximumLength = 2048

    /// Allowed path prefixes, each starting with `/`.
    package let pathPrefixes: [String]
    /// Allowed origins, lower-cased `scheme://host[:port]`.
    package let origins: Set<String>

    /// Builds the policy from `server.allowed_return_to` entries; entries that are neither a path nor an
    /// http(s) origin are ignored.
    package init(allowed: [String]) {
        var prefixes: [String] = []
        var origins: Set<String> = []
        for entry in allowed {
            if entry.hasPrefix("/"), !entry.hasPrefix("//") {
                prefixes.append(entry)
            } else if let origin = Self.origin(of: entry) {
                origins.insert(origin)
            }
        }
        self.pathPrefixes = prefixes
        self.origins = origins
    }

    /// The value to redirect to, or `nil` when `value` is absent or empty (the caller then uses `/`).
    ///
    /// - Throws: ``ServerError`` `invalid_return_to` (400) when the value is not allowed.
    package func validate(_ value: String?) throws(ServerError) -> String? {
        guard let value, !value.isEmpty else { return nil }
        guard Self.isAcceptable(value) else { throw Self.refusal }
        if value.hasPrefix("/") {
            guard !value.hasPrefix("//"), isAllowedPath(value) else { throw Self.refusal }
            return value
        }
        guard let (origin, rest) = Self.split(value), origins.contains(origin) else { throw Self.refusal }
        // The rest after the origin must itself be a harmless path (or nothing).
        if rest.isEmpty { return value }
        guard rest.hasPrefix("/") || rest.hasPrefix("?") || rest.hasPrefix("#"), !rest.hasPrefix("//") else {
            throw Self.refusal
        }
        return value
    }

    static let refusal = ServerError(
        .invalidReturnTo,
        "expected return_to to be a path under server.allowed_return_to or an allowed origin, found one that is not",
        status: 400)

    /// Printable ASCII only, no backslash, no encoded slash, backslash or dot.
    static func isAcceptable(_ value: String) -> Bool {
        let bytes = Array(value.utf8)
        guard bytes.count <= maximumLength else { return false }
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte <= 0x20 || byte >= 0x7F || byte == UInt8(ascii: "\\") { return false }
            if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.count else { return false }
                let pair = (bytes[index + 1] | 0x20, bytes[index + 2] | 0x20)  // lower-case hex
                switch pair {
                case (UInt8(ascii: "2"), UInt8(ascii: "f")), (UInt8(ascii: "5"), UInt8(ascii: "c")),
                    (UInt8(ascii: "2"), UInt8(ascii: "e")), (UInt8(ascii: "0"), _), (UInt8(ascii: "1"), _),
                    (UInt8(ascii: "7"), UInt8(ascii: "f")), (UInt8(ascii: "2"), UInt8(ascii: "5")):
                    // slash, backslash, dot, control characters, DEL, and a doubly encoded '%'.
                    return false
                default: break
                }
            }
            index += 1
        }
        return true
    }

    /// Whether the path part (before `?` or `#`), with dot segments resolved, lies under an allowed prefix.
    func isAllowedPath(_ value: String) -> Bool {
        let pathEnd = value.firstIndex { $0 == "?" || $0 == "#" } ?? value.endIndex
        let path = value[..<pathEnd]
        let normalized: Substring
        if path.utf8.contains(UInt8(ascii: ".")) {
            guard let resolved = Self.removingDotSegments(path) else { return false }
            // A resolved path must not have changed: `/app/../admin` is refused rather than rewritten.
            guard resolved == path else { return false }
            normalized = resolved
        } else {
            // Without a dot there is no `.` or `..` segment: the path is its own resolution.
            normalized = path
        }
        return pathPrefixes.contains { prefix in
            if prefix == "/" { return true }
            guard normalized.hasPrefix(prefix) else { return false }
            if prefix.hasSuffix("/") { return true }
            let next = normalized.dropFirst(prefix.count).first
            return next == nil || next == "/"
        }
    }

    /// RFC 3986 §5.2.4 on a path; `nil` when it climbs above the root.
    static func removingDotSegments(_ path: Substring) -> Substring? {
        var output: [Substring] = []
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        for segment in segments {
            switch segment {
            case ".": continue
            case "..":
                guard !output.isEmpty else { return nil }
                output.removeLast()
            default: output.append(segment)
            }
        }
        var result = "/" + output.joined(separator: "/")
        if path.hasSuffix("/.") || path.hasSuffix("/.."), !result.hasSuffix("/") { result += "/" }
        return Substring(result)
    }

    /// `scheme://host[:port]` lower-cased, for an `http(s)://` URL without user info; `nil` otherwise.
    static func origin(of url: String) -> String? {
        split(url)?.origin
    }

    /// The lower-cased origin (default ports dropped) and what follows the authority.
    static func split(_ url: String) -> (origin: String, rest: Substring)? {
        let lower = url.lowercased()
        let scheme: String
        if lower.hasPrefix("https://") {
            scheme = "https://"
        } else if lower.hasPrefix("http://") {
            scheme = "http://"
        } else {
            return nil
        }
        let afterScheme = lower.dropFirst(scheme.count)
        let authority = afterScheme.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.isEmpty, !authority.contains("@"), !authority.contains("\\"),
            authority.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || ".-:[]".contains($0)) })
        else { return nil }
        var host = authority
        if scheme == "http://", host.hasSuffix(":80") { host = host.dropLast(3) }
        if scheme == "https://", host.hasSuffix(":443") { host = host.dropLast(4) }
        return (scheme + host, url.dropFirst(scheme.count + authority.count))
    }
}
