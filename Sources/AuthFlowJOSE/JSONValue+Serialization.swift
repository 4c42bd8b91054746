extension JSONValue {
    static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    func serialize(into output: inout [UInt8]) {
        switch self {
        case .null:
            output.append(contentsOf: "null".utf8)
        case .bool(let value):
            output.append(contentsOf: (value ? "true" : "false").utf8)
        case .integer(let value):
            output.append(contentsOf: String(value).utf8)
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
            output.append(UInt8(ascii: "{"))
            var first = true
            for (name, value, _) in Self.sortedMembers(members) {
                if !first { output.append(UInt8(ascii: ",")) }
                first = false
                Self.serialize(string: name, into: &output)
                output.append(UInt8(ascii: ":"))
                value.serialize(into: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    /// The members in UTF-8 byte order of their names. Two ASCII names compare with `<`, which for
    /// ASCII is byte order and has a fast path for short strings; any other pair byte by byte.
    static func sortedMembers(_ members: [String: JSONValue]) -> [(String, JSONValue, Bool)] {
        var entries: [(String, JSONValue, Bool)] = []
        entries.reserveCapacity(members.count)
        for (name, value) in members { entries.append((name, value, name.utf8.allSatisfy { $0 < 0x80 })) }
        entries.sort { a, b in a.2 && b.2 ? a.0 < b.0 : precedes(a.0, b.0) }
        return entries
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
