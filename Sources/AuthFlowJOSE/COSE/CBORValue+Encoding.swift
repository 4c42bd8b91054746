extension CBORValue {
    /// The CTAP2 canonical encoding: shortest heads, definite lengths, and map entries sorted by their
    /// encoded keys (shorter first, then byte order). What ``CBORDecoder`` reads back to an equal value
    /// (up to the order of map entries).
    package func encoded() -> [UInt8] {
        var output: [UInt8] = []
        encode(into: &output)
        return output
    }

    /// Appends the canonical encoding to `output`.
    package func encode(into output: inout [UInt8]) {
        switch self {
        case .unsigned(let n): Self.writeHead(0, n, into: &output)
        case .negative(let n): Self.writeHead(1, n, into: &output)
        case .bytes(let bytes):
            Self.writeHead(2, UInt64(bytes.count), into: &output)
            output += bytes
        case .text(let text):
            let utf8 = Array(text.utf8)
            Self.writeHead(3, UInt64(utf8.count), into: &output)
            output += utf8
        case .array(let elements):
            Self.writeHead(4, UInt64(elements.count), into: &output)
            for element in elements { element.encode(into: &output) }
        case .map(let entries):
            Self.writeHead(5, UInt64(entries.count), into: &output)
            let encoded = entries.map { (key: $0.key.encoded(), value: $0.value.encoded()) }
            let sorted = encoded.sorted { a, b in
                a.key.count != b.key.count ? a.key.count < b.key.count : a.key.lexicographicallyPrecedes(b.key)
            }
            for entry in sorted { output += entry.key + entry.value }
        case .bool(let value): output.append(value ? 0xF5 : 0xF4)
        case .null: output.append(0xF6)
        }
    }

    private static func writeHead(_ major: UInt8, _ argument: UInt64, into output: inout [UInt8]) {
        let type = major << 5
        switch argument {
        case 0..<24:
            output.append(type | UInt8(argument))
        case 24...0xFF:
            output += [type | 24, UInt8(argument)]
        case 0x100...0xFFFF:
            output += [type | 25, UInt8(argument >> 8), UInt8(argument & 0xFF)]
        case 0x1_0000...0xFFFF_FFFF:
            output.append(type | 26)
            for shift in stride(from: 24, through: 0, by: -8) {
                output.append(UInt8((argument >> UInt64(shift)) & 0xFF))
            }
        default:
            output.append(type | 27)
            for shift in stride(from: 56, through: 0, by: -8) {
                output.append(UInt8((argument >> UInt64(shift)) & 0xFF))
            }
        }
    }
}
