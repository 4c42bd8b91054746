extension HTTPServerRequest {
    /// The media type of the body (`Content-Type` without parameters, lower-cased), or nil.
    public var mediaType: String? {
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

    /// The first value of form field `name`, or nil (see `formFields()`).
    ///
    /// - Throws: `HTTPServerError.unsupportedMediaType` unless the body is form-urlencoded.
    public func formValue(_ name: String) throws(HTTPServerError) -> String? {
        try formFields().first { $0.0 == name }?.1
    }

    /// The body bytes of a JSON request, for a JSON parser.
    ///
    /// - Throws: `HTTPServerError.unsupportedMediaType` unless the media type is
    ///   `application/json` or ends in `+json`.
    public func jsonBody() throws(HTTPServerError) -> [UInt8] {
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
        for header in headers.values("Cookie") {
            for piece in header.split(separator: ";") {
                guard let equals = piece.firstIndex(of: "=") else { continue }
                let name = piece[..<equals].trimmingASCIISpaces()
                var value = piece[piece.index(after: equals)...].trimmingASCIISpaces()
                if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                    value = String(value.dropFirst().dropLast())
                }
                guard !name.isEmpty, result[name] == nil else { continue }
                result[name] = value
            }
        }
        return result
    }

    /// Every value the `Cookie` headers carry for `name`, in order. A browser sends one value per name unless
    /// cookies with the same name but different paths or domains were set (e.g. tossed in by a sibling
    /// subdomain); callers that need one value treat several as an error.
    public func cookieValues(_ name: String) -> [String] {
        cookiePairs().filter { $0.0 == name }.map(\.1)
    }

    /// The names the `Cookie` headers carry, in order (with repeats).
    public func cookieNames() -> [String] {
        cookiePairs().map(\.0)
    }

    private func cookiePairs() -> [(String, String)] {
        var pairs: [(String, String)] = []
        for header in headers.values("Cookie") {
            for piece in header.split(separator: ";") {
                guard let equals = piece.firstIndex(of: "=") else { continue }
                let name = piece[..<equals].trimmingASCIISpaces()
                var value = piece[piece.index(after: equals)...].trimmingASCIISpaces()
                if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                    value = String(value.dropFirst().dropLast())
                }
                guard !name.isEmpty else { continue }
                pairs.append((name, value))
            }
        }
        return pairs
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
