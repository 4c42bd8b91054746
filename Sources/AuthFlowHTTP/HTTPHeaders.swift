/// HTTP header fields: ordered as received or added, names compared case-insensitively (ASCII),
/// and multi-valued (several `Set-Cookie` fields stay separate).
///
/// Values are stored as given; the client and server refuse fields whose name is not an HTTP
/// token or whose value contains CR, LF or NUL when they put them on the wire.
public struct HTTPHeaders: Sendable, Sequence, ExpressibleByDictionaryLiteral, Equatable {
    /// One header field.
    public typealias Element = (name: String, value: String)

    private var fields: [Element] = []

    /// An empty set of headers.
    public init() {}

    /// Empty headers with room for `capacity` fields (the server collects a request's headers into these).
    package init(reservingCapacity capacity: Int) {
        fields.reserveCapacity(capacity)
    }

    /// Makes room for at least `count` fields in all, so that adding up to that many does not regrow the storage.
    package mutating func reserveCapacity(_ count: Int) {
        fields.reserveCapacity(count)
    }

    /// Headers from name/value pairs, in order; repeated names stay separate fields.
    package init(_ fields: [(String, String)]) {
        self.fields = fields.map { (name: $0.0, value: $0.1) }
    }

    /// Headers from a literal such as `["Accept": "application/json"]`, in source order.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// The first value of `name`; setting replaces every field of that name (nil removes them).
    /// The new value takes the position of the first removed field, or goes at the end.
    public subscript(name: String) -> String? {
        get { fields.first { Self.sameName($0.name, name) }?.value }
        set {
            guard let position = fields.firstIndex(where: { Self.sameName($0.name, name) }) else {
                if let newValue { fields.append((name: name, value: newValue)) }
                return
            }
            // The common case, one field of that name, is replaced (or removed) in place.
            if !fields[(position + 1)...].contains(where: { Self.sameName($0.name, name) }) {
                if let newValue {
                    fields[position] = (name: name, value: newValue)
                } else {
                    fields.remove(at: position)
                }
                return
            }
            fields.removeAll { Self.sameName($0.name, name) }
            guard let newValue else { return }
            fields.insert((name: name, value: newValue), at: Swift.min(position, fields.count))
        }
    }

    /// Every value of `name`, in order.
    public func values(_ name: String) -> [String] {
        fields.filter { Self.sameName($0.name, name) }.map(\.value)
    }

    /// Appends a field, keeping any existing fields of the same name.
    public mutating func add(_ name: String, _ value: String) {
        fields.append((name: name, value: value))
    }

    /// Removes every field named `name`.
    package mutating func remove(_ name: String) {
        fields.removeAll { Self.sameName($0.name, name) }
    }

    /// Whether at least one field is named `name`.
    package func contains(_ name: String) -> Bool {
        fields.contains { Self.sameName($0.name, name) }
    }

    /// The number of fields (a repeated name counts once per field).
    package var count: Int { fields.count }

    /// Whether there are no fields.
    package var isEmpty: Bool { fields.isEmpty }

    /// Iterates the fields in order.
    public func makeIterator() -> IndexingIterator<[Element]> {
        fields.makeIterator()
    }

    /// Equal when the same fields appear in the same order (names compared case-insensitively).
    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.count == rhs.fields.count
            && zip(lhs.fields, rhs.fields).allSatisfy { sameName($0.name, $1.name) && $0.value == $1.value }
    }

    /// ASCII case-insensitive comparison of two header names, byte by byte.
    package static func sameName(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        var a = a
        var b = b
        // Over the contiguous UTF-8 bytes: iterating two `UTF8View`s in step costs more than the comparison.
        return a.withUTF8 { x in
            b.withUTF8 { y in
                for index in 0..<x.count where x[index] != y[index] {
                    guard lowercased(x[index]) == lowercased(y[index]) else { return false }
                }
                return true
            }
        }
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }

    /// Whether `name` is a non-empty HTTP token (RFC 9110 §5.6.2).
    package static func isValidName(_ name: String) -> Bool {
        var name = name
        return name.withUTF8 { bytes in !bytes.isEmpty && bytes.allSatisfy(isTokenByte) }
    }

    /// Whether `value` can be sent as a field value: no CR, LF or NUL.
    package static func isValidValue(_ value: String) -> Bool {
        var value = value
        // One pass over the contiguous UTF-8 bytes, eight at a time while none is below 0x0E (the usual case: a
        // long `Location` or `Set-Cookie` costs a few instructions per word); from the first word that has one
        // (a tab, say) on, byte by byte.
        return value.withUTF8 { bytes in
            var index = 0
            if let base = bytes.baseAddress {
                let raw = UnsafeRawPointer(base)
                while index + 8 <= bytes.count {
                    let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                    if (word &- 0x0E0E_0E0E_0E0E_0E0E) & ~word & 0x8080_8080_8080_8080 != 0 { break }
                    index += 8
                }
            }
            while index < bytes.count {
                let byte = bytes[index]
                if byte <= 0x0D && (byte == 0x0D || byte == 0x0A || byte == 0x00) { return false }
                index += 1
            }
            return true
        }
    }

    static func isTokenByte(_ byte: UInt8) -> Bool {
        // The token set (letters, digits and !#$%&'*+-.^_`|~) as two 64-bit masks, bytes 0–63 and 64–127:
        // one shift per byte instead of a search through the punctuation list.
        switch byte {
        case 0..<64: return (0x03ff_6cfa_0000_0000 as UInt64) >> UInt64(byte) & 1 == 1
        case 64..<128: return (0x57ff_ffff_c7ff_fffe as UInt64) >> UInt64(byte - 64) & 1 == 1
        default: return false
        }
    }
}
