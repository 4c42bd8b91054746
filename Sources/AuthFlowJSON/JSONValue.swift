/// A small JSON value, parsed and serialized at the byte level. Used for JOSE headers, JWT
/// claims, JWK sets and provider response bodies.
public enum JSONValue: Sendable, Hashable {
    /// `null`
    case null
    /// `true` or `false`
    case bool(Bool)
    /// A number written without fraction or exponent that fits in 64 bits.
    case integer(Int64)
    /// Any other number.
    case double(Double)
    /// A string (escapes resolved).
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object; duplicate member names are refused when parsing.
    case object([String: JSONValue])

    /// Parses strict RFC 8259 JSON (one value, optional surrounding whitespace).
    /// - Throws: `JSONError` with the byte offset of the problem; duplicate object
    ///   member names, invalid UTF-8, nesting deeper than 64 and trailing data are refused.
    public static func parse(_ bytes: some Collection<UInt8>) throws(JSONError) -> JSONValue {
        if let result = bytes.withContiguousStorageIfAvailable({ buffer in
            Result { () throws(JSONError) in try parse(buffer: buffer) }
        }) {
            return try result.get()
        }
        return try Array(bytes).withUnsafeBufferPointer { buffer throws(JSONError) in try parse(buffer: buffer) }
    }

    package static func parse(buffer: UnsafeBufferPointer<UInt8>) throws(JSONError) -> JSONValue {
        var parser = JSONParser(buffer)
        return try parser.parseDocument()
    }

    /// The member `key` when this is an object that has it; `nil` otherwise.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The string, when this is a string.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The number as `Int64`, when this is an integer or a double with an exact integral value.
    public var int64Value: Int64? {
        switch self {
        case .integer(let value): return value
        case .double(let value): return Int64(exactly: value)
        default: return nil
        }
    }

    /// The number as `Double`, when this is a number.
    public var doubleValue: Double? {
        switch self {
        case .integer(let value): return Double(value)
        case .double(let value): return value
        default: return nil
        }
    }

    /// The boolean, when this is a JSON `true` or `false` (strings are not booleans here).
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The members, when this is an object.
    public var objectValue: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// The elements, when this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// Compact JSON with object members sorted by name (UTF-8 byte order), so equal values
    /// serialize to equal text.
    public func serialized() -> String {
        var output = ByteWriter(capacity: 128)
        write(to: &output)
        return output.string
    }

    /// The compact serialization as UTF-8 bytes.
    public func serializedBytes() -> [UInt8] {
        // An ID token payload (500-900 bytes) fits without growing.
        var output = ByteWriter(capacity: 1024)
        write(to: &output)
        return output.array
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral, ExpressibleByFloatLiteral
{
    /// A string literal.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An integer literal.
    public init(integerLiteral value: Int64) { self = .integer(value) }
    /// A boolean literal.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An array literal.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// An object literal; a repeated key keeps the last value.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    /// `nil` is JSON `null`.
    public init(nilLiteral: ()) { self = .null }
    /// A floating-point literal.
    public init(floatLiteral value: Double) { self = .double(value) }
}
