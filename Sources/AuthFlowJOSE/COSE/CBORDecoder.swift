/// A strict decoder for the CBOR (RFC 8949) that WebAuthn sends: attestation objects, COSE keys and
/// authenticator extension outputs.
///
/// It accepts unsigned and negative integers, byte and text strings (UTF-8 checked), arrays, maps whose
/// keys are integers or text strings, `true`, `false` and `null`, each with definite lengths in their
/// shortest encoding (the "preferred serialization" of RFC 8949 §4.1, which the CTAP2 canonical form
/// requires of authenticators). It refuses indefinite lengths, tags, floats, `undefined` and other simple
/// values, duplicate map keys, nesting deeper than ``maximumDepth`` and inputs longer than
/// ``maximumBytes``. The order of map keys is not checked: CTAP2 asks authenticators to sort them, but a
/// relying party gains nothing from refusing an unsorted map. Every failure is a ``CBORError`` with the
/// byte offset; nothing is allocated beyond what the input's length can hold.
package struct CBORDecoder: Sendable {
    /// The longest input accepted, in bytes.
    package var maximumBytes: Int
    /// The deepest nesting of arrays and maps accepted (the top-level item is depth 0).
    package var maximumDepth: Int

    /// A decoder with the given caps (64 KiB and 16 levels by default).
    package init(maximumBytes: Int = 65_536, maximumDepth: Int = 16) {
        self.maximumBytes = maximumBytes
        self.maximumDepth = maximumDepth
    }

    /// Decodes exactly one data item that fills all of `bytes`.
    /// - Throws: `CBORError`, `.trailingBytes` when bytes follow the item.
    package func decode(_ bytes: [UInt8]) throws(CBORError) -> CBORValue {
        let (value, end) = try decodeItem(in: bytes, at: 0)
        guard end == bytes.count else {
            throw CBORError(
                .trailingBytes, "expected the data item to end the input, found \(bytes.count - end) more bytes",
                at: end)
        }
        return value
    }

    /// Decodes the one data item that starts at `offset`, returning it and the offset just past it (for an
    /// item followed by other data, as a COSE key is inside authenticator data).
    /// - Throws: `CBORError`.
    package func decodeItem(in bytes: [UInt8], at offset: Int) throws(CBORError) -> (value: CBORValue, end: Int) {
        guard bytes.count <= maximumBytes else {
            throw CBORError(
                .tooLarge, "expected at most \(maximumBytes) bytes of CBOR, found \(bytes.count)", at: 0)
        }
        guard offset >= 0, offset <= bytes.count else {
            throw CBORError(.truncated, "expected a data item, found the end of the input", at: offset)
        }
        var reader = CBORReader(bytes: bytes, position: offset, maximumDepth: maximumDepth)
        let value = try reader.readItem(depth: 0)
        return (value, reader.position)
    }
}

/// The decoding state: the input and the position of the next byte.
struct CBORReader {
    let bytes: [UInt8]
    var position: Int
    let maximumDepth: Int

    var remaining: Int { bytes.count - position }

    mutating func readItem(depth: Int) throws(CBORError) -> CBORValue {
        let start = position
        guard position < bytes.count else {
            throw CBORError(.truncated, "expected a data item, found the end of the input", at: start)
        }
        let initial = bytes[position]
        position += 1
        let major = initial >> 5
        let info = initial & 0x1F
        if major == 7 { return try simpleValue(info, at: start) }
        if major == 6 {
            throw CBORError(.unsupportedItem, "expected no tags, found tag of major type 6", at: start)
        }
        let argument = try readArgument(info, major: major, at: start)
        switch major {
        case 0: return .unsigned(argument)
        case 1: return .negative(argument)
        case 2: return .bytes(try readBytes(argument, at: start))
        case 3: return .text(try readText(argument, at: start))
        case 4: return try readArray(count: argument, depth: depth, at: start)
        default: return try readMap(count: argument, depth: depth, at: start)
        }
    }

    /// The argument of a head: the value, length or count, refusing what is not in its shortest form.
    mutating func readArgument(_ info: UInt8, major: UInt8, at start: Int) throws(CBORError) -> UInt64 {
        switch info {
        case 0..<24:
            return UInt64(info)
        case 24...27:
            let width = 1 << Int(info - 24)
            guard remaining >= width else {
                throw CBORError(
                    .truncated, "expected \(width) bytes of argument, found \(remaining)", at: start)
            }
            var value: UInt64 = 0
            for _ in 0..<width {
                value = value << 8 | UInt64(bytes[position])
                position += 1
            }
            let smallest: UInt64 = width == 1 ? 24 : 1 << (4 * UInt64(width))
            guard value >= smallest else {
                throw CBORError(
                    .nonCanonical,
                    "expected the shortest encoding of \(value) (major type \(major)), found \(width + 1) bytes",
                    at: start)
            }
            return value
        case 31:
            throw CBORError(
                .indefiniteLength, "expected a definite length, found an indefinite one (major type \(major))",
                at: start)
        default:
            throw CBORError(
                .reserved, "expected additional information 0 to 27, found the reserved value \(info)", at: start)
        }
    }

    mutating func simpleValue(_ info: UInt8, at start: Int) throws(CBORError) -> CBORValue {
        switch info {
        case 20: return .bool(false)
        case 21: return .bool(true)
        case 22: return .null
        case 25, 26, 27:
            throw CBORError(.unsupportedItem, "expected no floating-point numbers, found one", at: start)
        case 31:
            throw CBORError(.indefiniteLength, "expected a data item, found a break code", at: start)
        default:
            throw CBORError(
                .unsupportedItem, "expected true, false or null, found simple value (additional information \(info))",
                at: start)
        }
    }

    mutating func readBytes(_ length: UInt64, at start: Int) throws(CBORError) -> [UInt8] {
        guard length <= UInt64(remaining) else {
            throw CBORError(
                .truncated, "expected a string of \(length) bytes, found \(remaining) bytes left", at: start)
        }
        let end = position + Int(length)
        let slice = Array(bytes[position..<end])
        position = end
        return slice
    }

    mutating func readText(_ length: UInt64, at start: Int) throws(CBORError) -> String {
        let raw = try readBytes(length, at: start)
        guard let text = String(validating: raw, as: UTF8.self) else {
            throw CBORError(.invalidUTF8, "expected a UTF-8 text string, found invalid UTF-8", at: start)
        }
        return text
    }

    mutating func enter(_ depth: Int, at start: Int) throws(CBORError) {
        guard depth < maximumDepth else {
            throw CBORError(
                .tooDeep, "expected arrays and maps nested at most \(maximumDepth) deep, found deeper", at: start)
        }
    }

    mutating func readArray(count: UInt64, depth: Int, at start: Int) throws(CBORError) -> CBORValue {
        try enter(depth, at: start)
        // Every element takes at least one byte, so a count beyond the input is truncation, found before
        // anything is allocated for it.
        guard count <= UInt64(remaining) else {
            throw CBORError(
                .truncated, "expected \(count) array elements, found only \(remaining) bytes left", at: start)
        }
        var elements: [CBORValue] = []
        elements.reserveCapacity(Int(count))
        for _ in 0..<count { elements.append(try readItem(depth: depth + 1)) }
        return .array(elements)
    }

    mutating func readMap(count: UInt64, depth: Int, at start: Int) throws(CBORError) -> CBORValue {
        try enter(depth, at: start)
        guard count <= UInt64(remaining / 2) else {
            throw CBORError(
                .truncated, "expected \(count) map entries, found only \(remaining) bytes left", at: start)
        }
        var entries: [CBORMapEntry] = []
        entries.reserveCapacity(Int(count))
        var seen = Set<CBORValue>()
        for _ in 0..<count {
            let keyStart = position
            let key = try readItem(depth: depth + 1)
            switch key {
            case .unsigned, .negative, .text: break
            default:
                throw CBORError(
                    .unsupportedKey, "expected an integer or text map key, found \(key.kind)", at: keyStart)
            }
            guard seen.insert(key).inserted else {
                throw CBORError(.duplicateKey, "expected distinct map keys, found one repeated", at: keyStart)
            }
            entries.append(CBORMapEntry(key, try readItem(depth: depth + 1)))
        }
        return .map(entries)
    }
}
