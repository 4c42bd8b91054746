/// A validated JSON object kept as its bytes plus the position of each member's name and value,
/// so a reader that needs a few members (a JWS header, the claims a verifier checks) decodes only
/// those. Building the index validates the whole document exactly as ``JSONValue/parse(_:)``
/// does (same refusals, same messages and byte offsets) but allocates no value it does not need.
package struct JSONObjectIndex: Sendable {
    /// A member: where its name and value lie in `bytes`. Plain data (no reference inside), so
    /// members are copied and freed without reference counting and sixteen fit a small allocation.
    package struct Member: Sendable {
        /// The name's bytes between the quotes, when they are the name itself (no escapes).
        package let nameStart: Int
        package let nameEnd: Int
        /// Where the decoded name is in `decodedNames` when the written one has escapes or
        /// non-ASCII bytes; -1 otherwise.
        package let decodedName: Int
        /// A digest of the decoded name's bytes, compared before the bytes themselves.
        package let fingerprint: UInt64
        package let start: Int
        package let end: Int
        /// What the validating scan learned about the value, so readers of plain values need not look again.
        package let kind: ValueKind
    }

    /// The shape of a member's value as far as the fast readers care.
    package enum ValueKind: Sendable {
        /// A string of printable ASCII without escapes: its bytes between the quotes are its UTF-8.
        case plainString
        /// An integer of at most 18 digits, without fraction or exponent (always fits in `Int64`).
        case plainInteger
        /// Anything else; decoded the ordinary way.
        case other
    }

    /// Above this many members duplicate names are found with a set of decoded names (as the
    /// dictionary-building parser does) rather than by comparing fingerprints pairwise.
    package static let linearScanLimit = 32

    package let bytes: [UInt8]
    package let members: [Member]
    /// The decoded names of the members whose written names are not their bytes (usually none).
    package let decodedNames: [String]

    /// Indexes `bytes`; `nil` when the document is valid JSON but not an object.
    /// - Throws: `JSONError` as ``JSONValue/parse(_:)``.
    package static func index(_ bytes: [UInt8]) throws(JSONError) -> JSONObjectIndex? {
        let indexed = try bytes.withUnsafeBufferPointer {
            buffer throws(JSONError) -> (members: [Member], decodedNames: [String])? in
            var parser = JSONParser(buffer)
            parser.skipWhitespace()
            guard parser.index < buffer.count, buffer[parser.index] == UInt8(ascii: "{") else {
                // Not an object: validate it the ordinary way so a malformed document gets the same error.
                _ = try JSONValue.parse(buffer: buffer)
                return nil
            }
            let indexed = try parser.indexObject()
            parser.skipWhitespace()
            if parser.index != buffer.count {
                throw parser.failure("expected the end of the JSON text, found more data")
            }
            return indexed
        }
        guard let indexed else { return nil }
        return JSONObjectIndex(bytes: bytes, members: indexed.members, decodedNames: indexed.decodedNames)
    }

    /// FNV-1a over `bytes`: cheap, and only ever confirmed by comparing the bytes.
    package static func fingerprint(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }

    /// Whether the object has a member `name`.
    package func contains(_ name: String) -> Bool { position(of: name) != nil }

    /// Names looked for together, with their fingerprints computed once.
    package struct NameList: Sendable {
        let names: [[UInt8]]
        let fingerprints: [UInt64]

        /// At most 64 names.
        package init(_ names: [String]) {
            precondition(names.count <= 64, "a NameList holds at most 64 names")
            self.names = names.map { Array($0.utf8) }
            self.fingerprints = self.names.map { name in name.withUnsafeBufferPointer { fingerprint($0) } }
        }
    }

    /// Which names of `list` the object has, in one pass over its members: bit `i` is set when
    /// it has a member named `list.names[i]` (the same answer as ``contains(_:)`` for each).
    package func presence(of list: NameList) -> UInt64 {
        var found: UInt64 = 0
        bytes.withUnsafeBufferPointer { buffer in
            for member in members {
                for (offset, fingerprint) in list.fingerprints.enumerated() where fingerprint == member.fingerprint {
                    let matches = list.names[offset].withUnsafeBufferPointer {
                        Self.name(of: member, in: buffer, decodedNames: decodedNames, equals: $0)
                    }
                    if matches { found |= 1 << UInt64(offset) }
                }
            }
        }
        return found
    }

    /// The value of member `name`, decoded now.
    package func value(_ name: String) -> JSONValue? {
        guard let index = position(of: name) else { return nil }
        return decode(members[index])
    }

    /// A member read as a string.
    package enum StringMember {
        /// No member has the name.
        case absent
        /// The member is this string.
        case string(String)
        /// The member is not a string.
        case other
    }

    /// Member `name` as a string; a plain string (see ``ValueKind``) is built from its bytes
    /// without running the parser again.
    package func stringMember(_ name: String) -> StringMember {
        guard let index = position(of: name) else { return .absent }
        let member = members[index]
        if member.kind == .plainString {
            return bytes.withUnsafeBufferPointer { buffer in
                .string(
                    String(
                        decoding: UnsafeBufferPointer(rebasing: buffer[(member.start + 1)..<(member.end - 1)]),
                        as: UTF8.self))
            }
        }
        guard let text = decode(member)?.stringValue else { return .other }
        return .string(text)
    }

    /// Calls `body` with the bytes of member `name`'s value when it is a string written without
    /// escapes or non-ASCII bytes, so those bytes are the string's UTF-8; `nil` otherwise.
    package func withPlainString<Result>(_ name: String, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result? {
        guard let index = position(of: name) else { return nil }
        let member = members[index]
        // The scan that built the index already found no escape, control or non-ASCII byte in it.
        guard member.kind == .plainString else { return nil }
        return bytes.withUnsafeBufferPointer { buffer -> Result? in
            body(UnsafeBufferPointer(rebasing: buffer[(member.start + 1)..<(member.end - 1)]))
        }
    }

    /// The value of member `name` when it is an integer of at most 18 digits written without
    /// fraction or exponent (what ``value(_:)`` would give as `.integer`), read without decoding a
    /// `JSONValue`; `nil` in every other case.
    package func plainInteger(_ name: String) -> Int64? {
        guard let index = position(of: name) else { return nil }
        let member = members[index]
        guard member.kind == .plainInteger else { return nil }
        return bytes.withUnsafeBufferPointer { buffer -> Int64 in
            let negative = buffer[member.start] == UInt8(ascii: "-")
            var value: Int64 = 0
            for position in (negative ? member.start + 1 : member.start)..<member.end {
                let digit = Int64(buffer[position] &- UInt8(ascii: "0"))
                value = negative ? value * 10 - digit : value * 10 + digit
            }
            return value
        }
    }

    /// Every member as a dictionary.
    package func dictionary() -> [String: JSONValue] {
        var result = [String: JSONValue](minimumCapacity: members.count)
        for member in members {
            if let value = decode(member) { result[name(of: member)] = value }
        }
        return result
    }

    /// The member's name as a string.
    package func name(of member: Member) -> String {
        bytes.withUnsafeBufferPointer { Self.name(of: member, in: $0, decodedNames: decodedNames) }
    }

    /// The name of a member of the object in `buffer`.
    package static func name(of member: Member, in buffer: UnsafeBufferPointer<UInt8>, decodedNames: [String]) -> String
    {
        if member.decodedName >= 0 { return decodedNames[member.decodedName] }
        return String(decoding: UnsafeBufferPointer(rebasing: buffer[member.nameStart..<member.nameEnd]), as: UTF8.self)
    }

    /// Whether two members of the object in `buffer` have the same decoded name.
    package static func sameName(
        _ a: Member, _ b: Member, in buffer: UnsafeBufferPointer<UInt8>, decodedNames: [String]
    )
        -> Bool
    {
        guard a.fingerprint == b.fingerprint else { return false }
        if a.decodedName >= 0 {
            var decodedName = decodedNames[a.decodedName]
            return decodedName.withUTF8 { name(of: b, in: buffer, decodedNames: decodedNames, equals: $0) }
        }
        return name(
            of: b, in: buffer, decodedNames: decodedNames,
            equals: UnsafeBufferPointer(rebasing: buffer[a.nameStart..<a.nameEnd]))
    }

    private func position(of name: String) -> Int? {
        var name = name
        return name.withUTF8 { query in
            let fingerprint = Self.fingerprint(query)
            return bytes.withUnsafeBufferPointer { buffer in
                members.firstIndex { member in
                    member.fingerprint == fingerprint
                        && Self.name(of: member, in: buffer, decodedNames: decodedNames, equals: query)
                }
            }
        }
    }

    /// Whether `member`'s decoded name is exactly `query`.
    package static func name(
        of member: Member, in buffer: UnsafeBufferPointer<UInt8>, decodedNames: [String],
        equals query: UnsafeBufferPointer<UInt8>
    ) -> Bool {
        if member.decodedName >= 0 {
            var decodedName = decodedNames[member.decodedName]
            return decodedName.withUTF8 { equal($0, query) }
        }
        return equal(UnsafeBufferPointer(rebasing: buffer[member.nameStart..<member.nameEnd]), query)
    }

    /// Whether `a` and `b` hold the same bytes (not constant-time: for names and public values).
    package static func equal(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        guard a.count > 0, let leftBase = a.baseAddress, let rightBase = b.baseAddress else { return true }
        let left = UnsafeRawPointer(leftBase)
        let right = UnsafeRawPointer(rightBase)
        var index = 0
        while index + 8 <= a.count {
            let x = left.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            if x != right.loadUnaligned(fromByteOffset: index, as: UInt64.self) { return false }
            index += 8
        }
        while index < a.count {
            if leftBase[index] != rightBase[index] { return false }
            index += 1
        }
        return true
    }

    /// Whether every byte of `bytes` is below 0x80 (eight at a time).
    package static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        var index = 0
        while index + 8 <= bytes.count {
            if raw.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            index += 8
        }
        while index < bytes.count {
            if base[index] >= 0x80 { return false }
            index += 1
        }
        return true
    }

    /// The member's value; it was validated when the index was built, so decoding it again succeeds.
    private func decode(_ member: Member) -> JSONValue? {
        bytes.withUnsafeBufferPointer { buffer in
            var parser = JSONParser(UnsafeBufferPointer(rebasing: buffer[member.start..<member.end]))
            return try? parser.parseValue()
        }
    }
}
