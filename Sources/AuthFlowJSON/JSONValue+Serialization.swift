extension JSONValue {
    package static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Appends the compact serialization (the bytes of ``serializedBytes()``) to `output`, for callers that
    /// write several values into one buffer.
    package func serialize(into output: inout [UInt8]) {
        // The usual scalars go straight into the array: no buffer is allocated for them.
        switch self {
        case .integer(let value):
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
                let count = Self.write(integer: value, into: digits.baseAddress!)
                output.append(contentsOf: UnsafeBufferPointer(rebasing: digits[0..<count]))
            }
        case .string(var value):
            let plain = value.withUTF8 { bytes -> Bool in
                guard Self.isPlain(bytes) else { return false }
                output.append(UInt8(ascii: "\""))
                output.append(contentsOf: bytes)
                output.append(UInt8(ascii: "\""))
                return true
            }
            if plain { return }
            fallthrough
        default:
            var writer = ByteWriter(capacity: 256)
            write(to: &writer)
            writer.withBytes { output.append(contentsOf: $0) }
        }
    }

    /// Writes the compact serialization.
    package func write(to output: inout ByteWriter) {
        switch self {
        case .null:
            output.append("null")
        case .bool(let value):
            output.append(value ? "true" : "false")
        case .integer(let value):
            Self.write(integer: value, to: &output)
        case .double(let value):
            if value.isFinite {
                if let exact = Int64(exactly: value), abs(value) < 1e15 {
                    Self.write(integer: exact, to: &output)
                } else {
                    var text = "\(value)"
                    text.withUTF8 { output.append($0) }
                }
            } else {
                output.append("null")
            }
        case .string(let value):
            Self.write(string: value, to: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                element.write(to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            Self.write(object: members, to: &output)
        }
    }

    /// Writes an object with its members in ``sortedMembers(_:)`` order, straight from the
    /// dictionary: the sort moves (name prefix, dictionary index) pairs in temporary storage, so no
    /// name or value is copied, retained or collected into an array.
    package static func write(object members: [String: JSONValue], to output: inout ByteWriter) {
        typealias Entry = (prefix: UInt64, index: Dictionary<String, JSONValue>.Index)
        let count = members.count
        output.append(UInt8(ascii: "{"))
        withUnsafeTemporaryAllocation(of: Entry.self, capacity: count) { entries in
            var filled = 0
            var index = members.startIndex
            while index != members.endIndex {
                (entries.baseAddress! + filled).initialize(to: (sortPrefix(members.keys[index]), index))
                filled += 1
                members.formIndex(after: &index)
            }
            // Insertion sort: objects are small, and names rarely share their first eight bytes.
            for position in 1..<max(filled, 1) {
                let entry = entries[position]
                var hole = position
                while hole > 0 {
                    let other = entries[hole - 1]
                    let before =
                        entry.prefix != other.prefix
                        ? entry.prefix < other.prefix : precedes(members.keys[entry.index], members.keys[other.index])
                    if !before { break }
                    entries[hole] = other
                    hole -= 1
                }
                entries[hole] = entry
            }
            for position in 0..<filled {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                let (name, value) = members[entries[position].index]
                write(string: name, to: &output)
                output.append(UInt8(ascii: ":"))
                value.write(to: &output)
            }
            entries.baseAddress!.deinitialize(count: filled)
        }
        output.append(UInt8(ascii: "}"))
    }

    /// Writes an object whose members (with distinct names) are already in ``sortedMembers(_:)`` order.
    package static func write(sortedMembers members: [(UInt64, String, JSONValue)], to output: inout ByteWriter) {
        output.append(UInt8(ascii: "{"))
        var first = true
        for (_, name, value) in members {
            if !first { output.append(UInt8(ascii: ",")) }
            first = false
            write(string: name, to: &output)
            output.append(UInt8(ascii: ":"))
            value.write(to: &output)
        }
        output.append(UInt8(ascii: "}"))
    }

    /// The members in UTF-8 byte order of their names. Each name's first eight bytes, read as one
    /// big-endian number, order two names as their bytes do whenever those numbers differ; only
    /// names that agree in their first eight bytes are compared in full.
    package static func sortedMembers(_ members: [String: JSONValue]) -> [(UInt64, String, JSONValue)] {
        var entries: [(UInt64, String, JSONValue)] = []
        entries.reserveCapacity(members.count)
        for (name, value) in members { entries.append((sortPrefix(name), name, value)) }
        sortMembers(&entries)
        return entries
    }

    /// Sorts members built with ``sortPrefix(_:)`` into UTF-8 byte order of their names.
    package static func sortMembers(_ entries: inout [(UInt64, String, JSONValue)]) {
        entries.sort { a, b in a.0 != b.0 ? a.0 < b.0 : precedes(a.1, b.1) }
    }

    /// The first eight UTF-8 bytes of `name` as a big-endian number, zero-filled when shorter.
    package static func sortPrefix(_ name: String) -> UInt64 {
        var name = name
        return name.withUTF8 { bytes in
            var prefix: UInt64 = 0
            for index in 0..<8 { prefix = prefix << 8 | UInt64(index < bytes.count ? bytes[index] : 0) }
            return prefix
        }
    }

    /// Writes the decimal digits of `value`, without building a string.
    package static func write(integer value: Int64, to output: inout ByteWriter) {
        output.advance(by: write(integer: value, into: output.reserve(20)))
    }

    /// Writes the decimal digits of `value` (at most 20 bytes) to `out`; returns how many.
    package static func write(integer value: Int64, into out: UnsafeMutablePointer<UInt8>) -> Int {
        var written = 0
        if value < 0 {
            out[0] = UInt8(ascii: "-")
            written = 1
        }
        var magnitude = value.magnitude
        var digits = 0
        repeat {
            digits += 1
            magnitude /= 10
        } while magnitude != 0
        magnitude = value.magnitude
        var position = written + digits
        repeat {
            position -= 1
            out[position] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude % 10)
            magnitude /= 10
        } while magnitude != 0
        return written + digits
    }

    /// Member order: UTF-8 byte order (fast path for the usual ASCII names).
    package static func precedes(_ a: String, _ b: String) -> Bool {
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
    @inline(__always) package static func needsEscape(_ word: UInt64) -> Bool { escapeMask(word) != 0 }

    /// The high bit of each byte of `word` that is `"`, `\\` or below 0x20. A borrow can also mark
    /// a byte above a marked one, never below: the lowest mark is always exact.
    @inline(__always) package static func escapeMask(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let control = (word &- ones &* 0x20) & ~word
        let zeroQuote = (quote &- ones) & ~quote
        let zeroBackslash = (backslash &- ones) & ~backslash
        return (control | zeroQuote | zeroBackslash) & highs
    }

    /// Whether `bytes` need no escape in a JSON string (checked 8 bytes at a time).
    package static func isPlain(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
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
        return true
    }

    package static func write(string: String, to output: inout ByteWriter) {
        var string = string
        output.append(UInt8(ascii: "\""))
        // Fast path: nothing to escape (checked 8 bytes at a time), copy the bytes at once.
        let plain = string.withUTF8 { bytes -> Bool in
            guard isPlain(bytes) else { return false }
            output.append(bytes)
            return true
        }
        if plain {
            output.append(UInt8(ascii: "\""))
            return
        }
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output.append("\\\"")
            case UInt8(ascii: "\\"): output.append("\\\\")
            case 0x0A: output.append("\\n")
            case 0x0D: output.append("\\r")
            case 0x09: output.append("\\t")
            case 0x08: output.append("\\b")
            case 0x0C: output.append("\\f")
            case 0..<0x20:
                output.append("\\u00")
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0x0F)])
            default:
                output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
