import Foundation

extension HTTPServerRequest {
    /// The media type of the body (`Content-Type` without parameters, lower-cased), or nil.
    package var mediaType: String? {
        guard let contentType = headers["Content-Type"] else { return nil }
        let type = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let trimmed = type.trimmingASCIISpaces()
        return trimmed.isEmpty ? nil : trimmed.lowercased()
    }

    /// The body's fields, decoded, in order.
    ///
    /// - Throws: `HTTPServerError.unsupportedMediaType` unless the body is
    ///   `application/x-www-form-urlencoded`.
    public func formFields() throws(HTTPServerError) -> [(String, String)] {
        guard mediaType == "application/x-www-form-urlencoded" else {
            throw HTTPServerError(
                code: .unsupportedMediaType,
                message: "expected an application/x-www-form-urlencoded body, found \(mediaType ?? "no content type")")
        }
        return FormURLEncoding.decode(String(decoding: body, as: UTF8.self))
    }

    /// Every value of form field `name`, in order, decoding no other field (see `formFields()`).
    ///
    /// - Throws: `HTTPServerError.unsupportedMediaType` unless the body is form-urlencoded.
    package func formValues(_ name: String) throws(HTTPServerError) -> [String] {
        guard mediaType == "application/x-www-form-urlencoded" else {
            throw HTTPServerError(
                code: .unsupportedMediaType,
                message: "expected an application/x-www-form-urlencoded body, found \(mediaType ?? "no content type")")
        }
        return FormURLEncoding.values(named: name, in: body)
    }

    /// The first value of form field `name`, or nil (see `formFields()`).
    ///
    /// - Throws: `HTTPServerError.unsupportedMediaType` unless the body is form-urlencoded.
    package func formValue(_ name: String) throws(HTTPServerError) -> String? {
        try formFields().first { $0.0 == name }?.1
    }

    /// The body bytes of a JSON request, for a JSON parser.
    ///
    /// - Throws: `HTTPServerError.unsupportedMediaType` unless the media type is
    ///   `application/json` or ends in `+json`.
    package func jsonBody() throws(HTTPServerError) -> [UInt8] {
        guard let type = mediaType, type == "application/json" || type.hasSuffix("+json") else {
            throw HTTPServerError(
                code: .unsupportedMediaType,
                message: "expected an application/json body, found \(mediaType ?? "no content type")")
        }
        return body
    }

    /// The cookies of every `Cookie` header (RFC 6265 §5.4 syntax: `a=1; b=2`). When a name
    /// repeats, the first value wins (browsers send the most specific cookie first). Pieces
    /// without `=` are ignored; values in double quotes are unquoted.
    public func cookies() -> [String: String] {
        var result: [String: String] = [:]
        for (field, header) in headers where HTTPHeaders.sameName(field, "Cookie") {
            Self.forEachCookie(in: header) { name, value in
                if result[name] == nil { result[name] = value }
            }
        }
        return result
    }

    /// Every value the `Cookie` headers carry for `name`, in order. A browser sends one value per name unless
    /// cookies with the same name but different paths or domains were set (e.g. tossed in by a sibling
    /// subdomain); callers that need one value treat several as an error.
    package func cookieValues(_ name: String) -> [String] {
        var values: [String] = []
        var wanted = name
        wanted.withUTF8 { wanted in
            // The `Cookie` fields are walked in place, without an array of their values.
            for (field, header) in headers where HTTPHeaders.sameName(field, "Cookie") {
                // Names are compared as bytes in place: only the values asked for become strings.
                Self.forEachCookieRange(in: header) { bytes, cookie, value in
                    guard cookie.count == wanted.count,
                        UnsafeBufferPointer(rebasing: bytes[cookie]).elementsEqual(wanted)
                    else { return }
                    values.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[value]), as: UTF8.self))
                }
            }
        }
        return values
    }

    /// The names the `Cookie` headers carry, in order (with repeats).
    package func cookieNames() -> [String] {
        var names: [String] = []
        for (field, header) in headers where HTTPHeaders.sameName(field, "Cookie") {
            Self.forEachCookieRange(in: header) { bytes, name, _ in
                names.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[name]), as: UTF8.self))
            }
        }
        return names
    }

    /// Calls `body` with the name and value of each `name=value` piece of one `Cookie` header, in order:
    /// pieces split at `;`, spaces and tabs around names and values trimmed, pieces without `=` or with
    /// an empty name skipped, double-quoted values unquoted. Works on the UTF-8 bytes (every delimiter
    /// is ASCII), so a request's cookies cost one pass and two strings per cookie.
    static func forEachCookie(in header: String, _ body: (String, String) -> Void) {
        forEachCookieRange(in: header) { bytes, name, value in
            body(
                String(decoding: UnsafeBufferPointer(rebasing: bytes[name]), as: UTF8.self),
                String(decoding: UnsafeBufferPointer(rebasing: bytes[value]), as: UTF8.self))
        }
    }

    /// `forEachCookie(in:_:)` without making strings: `body` gets the header's UTF-8 bytes and the byte ranges
    /// of each cookie's name (never empty) and value.
    static func forEachCookieRange(
        in header: String, _ body: (UnsafeBufferPointer<UInt8>, Range<Int>, Range<Int>) -> Void
    ) {
        var header = header
        header.withUTF8 { bytes in
            guard let base = bytes.baseAddress else { return }
            let count = bytes.count
            func trimmed(_ range: Range<Int>) -> Range<Int> {
                var lower = range.lowerBound
                var upper = range.upperBound
                while lower < upper, bytes[lower] == 0x20 || bytes[lower] == 0x09 { lower += 1 }
                while upper > lower, bytes[upper - 1] == 0x20 || bytes[upper - 1] == 0x09 { upper -= 1 }
                return lower..<upper
            }
            // The index of the first `byte` in start..<end, or `end`. memchr, since values are most of the bytes.
            func find(_ byte: UInt8, from start: Int, to end: Int) -> Int {
                guard start < end, let found = memchr(base + start, Int32(byte), end - start) else { return end }
                return UnsafeRawPointer(found) - UnsafeRawPointer(base)
            }
            var start = 0
            while start < count {
                let end = find(UInt8(ascii: ";"), from: start, to: count)
                defer { start = end + 1 }
                let equals = find(UInt8(ascii: "="), from: start, to: end)
                guard equals < end else { continue }
                let name = trimmed(start..<equals)
                var value = trimmed(equals + 1..<end)
                if value.count >= 2, bytes[value.lowerBound] == UInt8(ascii: "\""),
                    bytes[value.upperBound - 1] == UInt8(ascii: "\"")
                {
                    value = value.lowerBound + 1..<value.upperBound - 1
                }
                guard !name.isEmpty else { continue }
                body(bytes, name, value)
            }
        }
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs.
    func trimmingASCIISpaces() -> String {
        var slice = Substring(self)
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return String(slice)
    }
}
