extension JSONValue {
    static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Appends the compact serialization (the bytes of ``serializedBytes()``) to `output`, for callers that
    /// write several values into one buffer.
    public func serialize(into output: inout [UInt8]) {
        switch self {
        case .null:
            output.append(contentsOf: "null".utf8)
        case .bool(let value):
            output.append(contentsOf: (value ? "true" : "false").utf8)
        case .integer(let value):
            Self.serialize(integer: value, into: &output)
        case .double(let value):
            if value.isFinite {
                if let exact = Int64(exactly: value), abs(value) < 1e15 {
                    output.append(contentsOf: String(exact).utf8)
                } else {
                    output.append(contentsOf: "\(value)".utf8)
                }
            } else {
                output.append(contentsOf: "null".utf8)
            }
        case .string(let value):
            Self.serialize(string: value, into: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                element.serialize(into: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            Self.serialize(sortedMembers: Self.sortedMembers(members), into: &output)
        }
    }

    /// Writes an object whose members (with distinct names) are already in ``sortedMembers(_:)`` order.
    static func serialize(sortedMembers members: [(UInt64, String, JSONValue)], into output: inout [UInt8]) {
        output.append(UInt8(ascii: "{"))
        var first = true
        for (_, name, value) in members {
            if !first { output.append(UInt8(ascii: ",")) }
            first = false
            serialize(string: name, into: &output)
            output.append(UInt8(ascii: ":"))
            value.serialize(into: &output)
        }
        output.append(UInt8(ascii: "}"))
    }

    /// The members in UTF-8 byte order of their names. Each name's first eight bytes, read as one
    /// big-endian number, order two names as their bytes do whenever those numbers differ; only
    /// names that agree in their first eight bytes are compared in full.
    static func sortedMembers(_ members: [String: JSONValue]) -> [(UInt64, String, JSONValue)] {
        var entries: [(UInt64, String, JSONValue)] = []
        entries.reserveCapacity(members.count)
        for (name, value) in members { entries.append((sortPrefix(name), name, value)) }
        sortMembers(&entries)
        return entries
    }

    /// Sorts members built with ``sortPrefix(_:)`` into UTF-8 byte order of their names.
    static func sortMembers(_ entries: inout [(UInt64, String, JSONValue)]) {
        entries.sort { a, b in a.0 != b.0 ? a.0 < b.0 : precedes(a.1, b.1) }
    }

    /// The first eight UTF-8 bytes of `name` as a big-endian number, zero-filled when shorter.
    static func sortPrefix(_ name: String) -> UInt64 {
        var name = name
        return name.withUTF8 { bytes in
            var prefix: UInt64 = 0
            for index in 0..<8 { prefix = prefix << 8 | UInt64(index < bytes.count ? bytes[index] : 0) }
            return prefix
        }
    }

    /// Appends the decimal digits of `value`, without building a string.
    static func serialize(integer value: Int64, into output: inout [UInt8]) {
        if value < 0 { output.append(UInt8(ascii: "-")) }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var magnitude = value.magnitude
            var index = 20
            repeat {
                index -= 1
                digits[index] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while magnitude != 0
            output.append(contentsOf: UnsafeBufferPointer(rebasing: digits[index...]))
        }
    }

    /// Member order: UTF-8 byte order (fast path for the usual ASCII names).
    static func precedes(_ a: String, _ b: String) -> Bool {
        if let result = a.utf8.withContiguousStorageIfAvailable({ x in
            b.utf8.withContiguousStorageIfAvailable { y -> Bool in
                for index in 0..<min(x.count, y.count) where x[index] != y[index] { return x[index] < y[index] }
                return x.count < y.count
            }
        }), let result {
            return result
        }
        return a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    /// Whether any byte of `word` is `"`, `\\` or below 0x20 (SWAR test; bytes of 0x80 and above
    /// are UTF-8 and need no escape).
    @inline(__always) static func needsEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let control = (word &- ones &* 0x20) & ~word
        let zeroQuote = (quote &- ones) & ~quote
        let zeroBackslash = (backslash &- ones) & ~backslash
        return (control | zeroQuote | zeroBackslash) & highs != 0
    }

    static func serialize(string: String, into output: inout [UInt8]) {
        var string = string
        output.append(UInt8(ascii: "\""))
        // Fast path: nothing to escape (checked 8 bytes at a time), copy the bytes at once.
        let plain = string.withUTF8 { bytes -> Bool in
            var index = 0
            if let base = bytes.baseAddress {
                let raw = UnsafeRawPointer(base)
                while index + 8 <= bytes.count {
                    if needsEscape(raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)) { return false }
                    index += 8
                }
            }
            while index < bytes.count {
                let byte = bytes[index]
                if byte < 0x20 || byte == 0x22 || byte == 0x5C { return false }
                index += 1
            }
            output.append(contentsOf: bytes)
            return true
        }
        if plain {
            output.append(UInt8(ascii: "\""))
            return
        }
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x08: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0..<0x20:
                output.append(contentsOf: "\\u00".utf8)
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0x0F)])
            default:
                output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
