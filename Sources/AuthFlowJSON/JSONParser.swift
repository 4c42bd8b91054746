/// Recursive-descent RFC 8259 parser over a byte buffer. Internal to ``JSONValue``.
struct JSONParser {
    static let maximumDepth = 64

    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    var depth = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    mutating func parseDocument() throws(JSONError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        if index != bytes.count { throw failure("expected the end of the JSON text, found more data") }
        return value
    }

    func failure(_ message: String) -> JSONError {
        JSONError(.invalidJSON, "\(message) at byte \(index)")
    }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    /// After an object member: moves past the `,` before the next member (`false`) or the `}` that closes the
    /// object (`true`).
    mutating func endOfMember() throws(JSONError) -> Bool {
        skipWhitespace()
        guard index < bytes.count else { throw failure("expected ',' or '}', found the end of the data") }
        if bytes[index] == UInt8(ascii: ",") {
            index += 1
            return false
        }
        guard bytes[index] == UInt8(ascii: "}") else { throw failure("expected ',' or '}'") }
        index += 1
        return true
    }

    mutating func parseValue() throws(JSONError) -> JSONValue {
        guard index < bytes.count else { throw failure("expected a JSON value, found the end of the data") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw failure("expected a JSON value, found an unexpected character")
        }
    }

    mutating func expectLiteral(_ literal: StaticString) throws(JSONError) {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - index >= count else { throw failure("expected '\(literal)'") }
        let start = literal.utf8Start
        for offset in 0..<count where bytes[index + offset] != start[offset] {
            throw failure("expected '\(literal)'")
        }
        index += count
    }

    mutating func enter() throws(JSONError) {
        depth += 1
        if depth > Self.maximumDepth {
            throw failure("expected at most \(Self.maximumDepth) levels of nesting, found more")
        }
    }

    mutating func parseObject() throws(JSONError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object([:])
        }
        // Sized for a typical JWT payload so it is allocated once.
        var members = [String: JSONValue](minimumCapacity: 16)
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw failure("expected a quoted member name")
            }
            let name = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw failure("expected ':' after a member name")
            }
            index += 1
            skipWhitespace()
            let value = try parseValue()
            if members.updateValue(value, forKey: name) != nil {
                throw failure("expected unique member names, found a duplicate member")
            }
            if try endOfMember() { break }
        }
        return .object(members)
    }

    mutating func parseArray() throws(JSONError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            guard index < bytes.count else { throw failure("expected ',' or ']', found the end of the data") }
            switch bytes[index] {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                return .array(elements)
            default: throw failure("expected ',' or ']'")
            }
        }
    }

    mutating func parseString() throws(JSONError) -> String {
        index += 1
        let start = index
        var ascii = true
        // Fast path: skip 8 plain bytes at a time (no quote, backslash, control or non-ASCII byte).
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            while index + 8 <= bytes.count {
                let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                if Self.hasSpecialByte(word) { break }
                index += 8
            }
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: bytes[start..<index])
                index += 1
                if ascii { return String(decoding: slice, as: UTF8.self) }
                guard let string = String(validating: slice, as: UTF8.self) else {
                    throw failure("expected UTF-8 text in a string, found invalid UTF-8")
                }
                return string
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw failure("expected control characters to be escaped in a string") }
            if byte >= 0x80 { ascii = false }
            index += 1
        }
        guard index < bytes.count else { throw failure("expected a closing '\"', found the end of the data") }
        return try parseEscapedString(from: start)
    }

    /// The rest of a string that has an escape at `index`; `start` is where its text began.
    mutating func parseEscapedString(from start: Int) throws(JSONError) -> String {
        var buffer = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\\"):
                index += 1
                try appendEscape(to: &buffer)
            case UInt8(ascii: "\""):
                index += 1
                guard let string = String(validating: buffer, as: UTF8.self) else {
                    throw failure("expected UTF-8 text in a string, found invalid UTF-8")
                }
                return string
            default:
                if byte < 0x20 { throw failure("expected control characters to be escaped in a string") }
                buffer.append(byte)
                index += 1
            }
        }
        throw failure("expected a closing '\"', found the end of the data")
    }

    /// Decodes the escape after a backslash (at `index`) into `buffer`.
    mutating func appendEscape(to buffer: inout [UInt8]) throws(JSONError) {
        guard index < bytes.count else { throw failure("expected an escape, found the end of the data") }
        let escape = bytes[index]
        index += 1
        switch escape {
        case UInt8(ascii: "\""): buffer.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): buffer.append(UInt8(ascii: "\\"))
        case UInt8(ascii: "/"): buffer.append(UInt8(ascii: "/"))
        case UInt8(ascii: "b"): buffer.append(0x08)
        case UInt8(ascii: "f"): buffer.append(0x0C)
        case UInt8(ascii: "n"): buffer.append(0x0A)
        case UInt8(ascii: "r"): buffer.append(0x0D)
        case UInt8(ascii: "t"): buffer.append(0x09)
        case UInt8(ascii: "u"): buffer.append(contentsOf: UTF8.encode(try parseUnicodeEscape())!)
        default: throw failure("expected a valid escape sequence")
        }
    }

    /// The scalar of a `\u` escape whose four digits start at `index`, joining a surrogate pair.
    mutating func parseUnicodeEscape() throws(JSONError) -> Unicode.Scalar {
        var scalar = try parseHex4()
        if (0xD800..<0xDC00).contains(scalar) {
            guard bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"),
                bytes[index + 1] == UInt8(ascii: "u")
            else { throw failure("expected a low surrogate after a high surrogate") }
            index += 2
            let low = try parseHex4()
            guard (0xDC00..<0xE000).contains(low) else {
                throw failure("expected a low surrogate after a high surrogate")
            }
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        } else if (0xDC00..<0xE000).contains(scalar) {
            throw failure("expected a high surrogate before a low surrogate")
        }
        guard let unicode = Unicode.Scalar(scalar) else { throw failure("expected a Unicode scalar") }
        return unicode
    }

    mutating func parseHex4() throws(JSONError) -> UInt32 {
        guard bytes.count - index >= 4 else { throw failure("expected four hex digits") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw failure("expected four hex digits")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    mutating func parseNumber() throws(JSONError) -> JSONValue {
        let start = index
        var negative = false
        if bytes[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        guard index < bytes.count, isDigit(bytes[index]) else { throw failure("expected a digit") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) { throw failure("expected no leading zeros in a number") }
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        var integral = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            integral = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw failure("expected a digit after '.'") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            integral = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else { throw failure("expected a digit in an exponent") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if integral {
            var value: Int64 = 0
            var overflow = false
            for position in (negative ? start + 1 : start)..<index {
                let digit = Int64(bytes[position] - UInt8(ascii: "0"))
                let (times, o1) = value.multipliedReportingOverflow(by: 10)
                let (next, o2) =
                    negative ? times.subtractingReportingOverflow(digit) : times.addingReportingOverflow(digit)
                if o1 || o2 {
                    overflow = true
                    break
                }
                value = next
            }
            if !overflow { return .integer(value) }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw failure("expected a finite number") }
        return .double(value)
    }

    /// Whether any byte of `word` is `"`, `\\`, below 0x20 or at least 0x80 (SWAR test).
    @inline(__always) static func hasSpecialByte(_ word: UInt64) -> Bool {
        word & 0x8080_8080_8080_8080 != 0 || JSONValue.needsEscape(word)
    }

    @inline(__always) func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}
