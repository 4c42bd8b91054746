/// A CBOR data item (RFC 8949) of the kinds WebAuthn uses: integers, byte and text strings, arrays,
/// maps, booleans and null. No floats, tags, `undefined` or indefinite lengths: ``CBORDecoder``
/// refuses them.
package enum CBORValue: Sendable, Hashable {
    /// A major type 0 integer.
    case unsigned(UInt64)
    /// A major type 1 integer: the value is `-1 - n`.
    case negative(UInt64)
    /// A byte string.
    case bytes([UInt8])
    /// A UTF-8 text string.
    case text(String)
    /// An array.
    case array([CBORValue])
    /// A map, its entries in the order they were encoded (keys are distinct).
    case map([CBORMapEntry])
    /// `true` or `false`.
    case bool(Bool)
    /// `null`.
    case null

    /// The value as an `Int`, for an integer that fits.
    package var intValue: Int? {
        switch self {
        case .unsigned(let n): return n <= UInt64(Int.max) ? Int(n) : nil
        case .negative(let n): return n <= UInt64(Int.max) ? -1 - Int(n) : nil
        default: return nil
        }
    }

    /// The bytes, for a byte string.
    package var bytesValue: [UInt8]? {
        if case .bytes(let bytes) = self { return bytes }
        return nil
    }

    /// The text, for a text string.
    package var textValue: String? {
        if case .text(let text) = self { return text }
        return nil
    }

    /// The entries, for a map.
    package var mapValue: [CBORMapEntry]? {
        if case .map(let entries) = self { return entries }
        return nil
    }

    /// The elements, for an array.
    package var arrayValue: [CBORValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// The value under `key`, when this is a map that has it.
    package subscript(key: CBORValue) -> CBORValue? {
        mapValue?.first { $0.key == key }?.value
    }

    /// The value under the text key `key`.
    package subscript(text key: String) -> CBORValue? { self[.text(key)] }

    /// The value under the integer key `key` (COSE labels).
    package subscript(label key: Int) -> CBORValue? { self[CBORValue(key)] }

    /// An integer item: major type 0 for `n >= 0`, 1 otherwise.
    package init(_ n: Int) {
        self = n >= 0 ? .unsigned(UInt64(n)) : .negative(UInt64(-1 - n))
    }

    /// A short description of the kind of item, for error messages (never the content).
    package var kind: String {
        switch self {
        case .unsigned, .negative: return "an integer"
        case .bytes: return "a byte string"
        case .text: return "a text string"
        case .array: return "an array"
        case .map: return "a map"
        case .bool: return "a boolean"
        case .null: return "null"
        }
    }
}

/// One key/value pair of a CBOR map.
package struct CBORMapEntry: Sendable, Hashable {
    /// The key.
    package var key: CBORValue
    /// The value.
    package var value: CBORValue

    /// A pair.
    package init(_ key: CBORValue, _ value: CBORValue) {
        self.key = key
        self.value = value
    }
}
