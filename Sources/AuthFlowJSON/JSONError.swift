/// Why bytes are not the JSON ``JSONValue/parse(_:)`` accepts.
///
/// The message says what was expected and what was found, with the byte offset; it never repeats the
/// document's text.
public struct JSONError: CodedError, Sendable, Equatable {
    /// The stable code of a JSON error.
    public typealias Code = ErrorCode<JSONError>

    /// The stable code: always `.invalidJSON`.
    public let code: Code
    /// What was expected and what was found, and where.
    public let message: String

    /// Creates an error.
    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
}

extension ErrorCode where Domain == JSONError {
    /// Bytes are not strict RFC 8259 JSON: bad syntax or UTF-8, a duplicate member name, nesting deeper
    /// than 64, or data after the value.
    package static var invalidJSON: Self { Self(rawValue: "invalid_json") }
}
