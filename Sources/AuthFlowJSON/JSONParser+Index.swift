extension JSONParser {
    /// Parses the object at `index` like ``parseObject()`` but records each member's value range
    /// instead of decoding it; names written with escapes or non-ASCII bytes are decoded into
    /// `decodedNames`.
    mutating func indexObject() throws(JSONError) -> (members: [JSONObjectIndex.Member], decodedNames: [String]) {
        try enter()
        defer { depth -= 1 }
        index += 1
        skipWhitespace()
        var members: [JSONObjectIndex.Member] = []
        var decodedNames: [String] = []
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return (members, decodedNames)
        }
        members.reserveCapacity(16)
        var names: Set<String> = []
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw failure("expected a quoted member name")
            }
            let nameStart = index + 1
            var nameEnd = nameStart
            var decodedName = -1
            let fingerprint: UInt64
            if skipPlainString() {
                nameEnd = index - 1
                fingerprint = JSONObjectIndex.fingerprint(UnsafeBufferPointer(rebasing: bytes[nameStart..<nameEnd]))
            } else {
                var name = try parseString()
                fingerprint = name.withUTF8 { JSONObjectIndex.fingerprint($0) }
                decodedName = decodedNames.count
                decodedNames.append(name)
            }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw failure("expected ':' after a member name")
            }
            index += 1
            skipWhitespace()
            let start = index
            let kind = try skipValue()
            let member = JSONObjectIndex.Member(
                nameStart: nameStart, nameEnd: nameEnd, decodedName: decodedName, fingerprint: fingerprint,
                start: start, end: index, kind: kind)
            let duplicate: Bool
            if members.count < JSONObjectIndex.linearScanLimit {
                duplicate = members.contains {
                    JSONObjectIndex.sameName($0, member, in: bytes, decodedNames: decodedNames)
                }
            } else {
                if names.isEmpty {
                    names = Set(members.map { JSONObjectIndex.name(of: $0, in: bytes, decodedNames: decodedNames) })
                }
                duplicate = !names.insert(JSONObjectIndex.name(of: member, in: bytes, decodedNames: decodedNames))
                    .inserted
            }
            if duplicate { throw failure("expected unique member names, found a duplicate member") }
            members.append(member)
            if try endOfMember() { return (members, decodedNames) }
        }
    }

    /// Validates one value as ``parseValue()`` would and moves past it. Plain strings and numbers
    /// are only scanned; anything else is parsed and dropped, so the refusals are the same.
    /// - Returns: whether the value was a plain string or integer (what the scan found), else `.other`.
    mutating func skipValue() throws(JSONError) -> JSONObjectIndex.ValueKind {
        guard index < bytes.count else { throw failure("expected a JSON value, found the end of the data") }
        switch bytes[index] {
        case UInt8(ascii: "\""):
            if skipPlainString() { return .plainString }
            _ = try parseString()
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            if skipPlainInteger() { return .plainInteger }
            _ = try parseNumber()
        default:
            _ = try parseValue()
        }
        return .other
    }

    /// Moves past a string of printable ASCII without escapes and returns true; otherwise leaves
    /// `index` where it was and returns false.
    mutating func skipPlainString() -> Bool {
        var position = index + 1
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            while position + 8 <= bytes.count {
                let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: position, as: UInt64.self))
                let special = (word & 0x8080_8080_8080_8080) | JSONValue.escapeMask(word)
                if special != 0 {
                    // The lowest marked byte is the first special one: the string ends there if it is the quote.
                    position += special.trailingZeroBitCount >> 3
                    guard base[position] == UInt8(ascii: "\"") else { return false }
                    index = position + 1
                    return true
                }
                position += 8
            }
        }
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                index = position + 1
                return true
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 || byte >= 0x80 { return false }
            position += 1
        }
        return false
    }

    /// Moves past an integer of at most 18 digits (which always fits in `Int64`) with no fraction
    /// or exponent and returns true; otherwise leaves `index` where it was and returns false.
    mutating func skipPlainInteger() -> Bool {
        var position = index
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        let digitsStart = position
        while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        let digits = position - digitsStart
        guard digits >= 1, digits <= 18 else { return false }
        if digits > 1, bytes[digitsStart] == UInt8(ascii: "0") { return false }
        if position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): return false
            default: break
            }
        }
        index = position
        return true
    }
}
