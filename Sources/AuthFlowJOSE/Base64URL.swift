/// Unpadded base64url (RFC 4648 §5) as JOSE uses it, working on bytes.
///
/// Decoding is strict: padding, whitespace, characters outside `A–Z a–z 0–9 - _`, an impossible
/// length and non-zero unused trailing bits are all refused, so every byte string has exactly one
/// accepted encoding.
public enum Base64URL {
    static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// 0xFF marks a byte outside the alphabet.
    static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(index) }
        return table
    }()

    /// The four positions of a quantum, pre-shifted: entry `256 * k + c` is the value of `c` at
    /// position `k` of 4, with 0xFF00_0000 marking a byte outside the alphabet, so one OR of four
    /// lookups yields three bytes and a validity flag.
    static let shiftedTables: [UInt32] = {
        var tables = [UInt32](repeating: 0xFF00_0000, count: 4 * 256)
        for (index, byte) in alphabet.enumerated() {
            for position in 0..<4 {
                tables[position * 256 + Int(byte)] = UInt32(index) << (18 - 6 * position)
            }
        }
        return tables
    }()

    /// Encodes bytes without padding.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        if let string = bytes.withContiguousStorageIfAvailable({ encode(buffer: $0) }) { return string }
        return Array(bytes).withUnsafeBufferPointer { encode(buffer: $0) }
    }

    static func encodedLength(_ count: Int) -> Int { (count / 3) * 4 + (count % 3 == 0 ? 0 : count % 3 + 1) }

    static func encode(buffer: UnsafeBufferPointer<UInt8>) -> String {
        let length = encodedLength(buffer.count)
        return String(unsafeUninitializedCapacity: length) { output in
            encode(buffer, into: output.baseAddress!)
            return length
        }
    }

    /// Appends the encoding of `buffer` to `output`.
    static func append(_ buffer: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        let length = encodedLength(buffer.count)
        let start = output.count
        output.append(contentsOf: repeatElement(0, count: length))
        output.withUnsafeMutableBufferPointer { out in
            encode(buffer, into: out.baseAddress! + start)
        }
    }

    /// Writes exactly `encodedLength(input.count)` bytes to `output`.
    static func encode(_ input: UnsafeBufferPointer<UInt8>, into output: UnsafeMutablePointer<UInt8>) {
        alphabet.withUnsafeBufferPointer { table in
            var i = 0
            var o = 0
            let count = input.count
            while i + 3 <= count {
                let value = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2])
                output[o] = table[Int(value >> 18)]
                output[o + 1] = table[Int((value >> 12) & 63)]
                output[o + 2] = table[Int((value >> 6) & 63)]
                output[o + 3] = table[Int(value & 63)]
                i += 3
                o += 4
            }
            switch count - i {
            case 1:
                let value = UInt32(input[i]) << 16
                output[o] = table[Int(value >> 18)]
                output[o + 1] = table[Int((value >> 12) & 63)]
            case 2:
                let value = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8
                output[o] = table[Int(value >> 18)]
                output[o + 1] = table[Int((value >> 12) & 63)]
                output[o + 2] = table[Int((value >> 6) & 63)]
            default:
                break
            }
        }
    }

    /// Decodes strict unpadded base64url.
    /// - Throws: `JOSEError` `.invalidBase64URL` naming the offset of the first bad character,
    ///   or the impossible length, or non-zero unused bits.
    public static func decode(_ text: some StringProtocol) throws(JOSEError) -> [UInt8] {
        let utf8 = text.utf8
        if let result = utf8.withContiguousStorageIfAvailable({ buffer in
            Result { () throws(JOSEError) in try decode(buffer: buffer) }
        }) {
            return try result.get()
        }
        return try Array(utf8).withUnsafeBufferPointer { buffer throws(JOSEError) in try decode(buffer: buffer) }
    }

    /// Decodes `input` (whose length is not 1 modulo 4) into `out`. Returns `Int.min` on success,
    /// the offset of the quantum holding a byte outside the alphabet, or -1 for non-zero unused bits.
    private static func decode(
        _ input: UnsafeBufferPointer<UInt8>, into out: UnsafeMutablePointer<UInt8>, tables: UnsafePointer<UInt32>,
        table: UnsafePointer<UInt8>
    ) -> Int {
        let count = input.count
        guard count > 0, let source = input.baseAddress else { return Int.min }
        var i = 0
        var o = 0
        while i + 4 <= count {
            let value =
                tables[Int(source[i])] | tables[256 + Int(source[i + 1])] | tables[512 + Int(source[i + 2])]
                | tables[768 + Int(source[i + 3])]
            if value & 0xFF00_0000 != 0 { return i }
            out[o] = UInt8(truncatingIfNeeded: value >> 16)
            out[o + 1] = UInt8(truncatingIfNeeded: value >> 8)
            out[o + 2] = UInt8(truncatingIfNeeded: value)
            i += 4
            o += 3
        }
        switch count - i {
        case 2:
            let a = table[Int(source[i])]
            let b = table[Int(source[i + 1])]
            if (a | b) & 0x80 != 0 { return i }
            if b & 0x0F != 0 { return -1 }
            out[o] = a << 2 | b >> 4
        case 3:
            let a = table[Int(source[i])]
            let b = table[Int(source[i + 1])]
            let c = table[Int(source[i + 2])]
            if (a | b | c) & 0x80 != 0 { return i }
            if c & 0x03 != 0 { return -1 }
            let value = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6
            out[o] = UInt8(truncatingIfNeeded: value >> 16)
            out[o + 1] = UInt8(truncatingIfNeeded: value >> 8)
        default:
            break
        }
        return Int.min
    }

    /// Decodes strict unpadded base64url bytes.
    static func decode(buffer input: UnsafeBufferPointer<UInt8>) throws(JOSEError) -> [UInt8] {
        let count = input.count
        if count % 4 == 1 {
            throw JOSEError(
                .invalidBase64URL, "expected a base64url length that is not 1 modulo 4, found \(count) characters")
        }
        if count == 0 { return [] }
        let outputLength = (count / 4) * 3 + max(count % 4 - 1, 0)
        var failure: Int? = nil
        let output = [UInt8](unsafeUninitializedCapacity: outputLength) { out, initialized in
            let result = shiftedTables.withUnsafeBufferPointer { tables in
                decodeTable.withUnsafeBufferPointer { table in
                    decode(input, into: out.baseAddress!, tables: tables.baseAddress!, table: table.baseAddress!)
                }
            }
            if result == Int.min {
                initialized = outputLength
            } else {
                failure = result
                initialized = 0
            }
        }
        if let failure {
            if failure < 0 {
                throw JOSEError(
                    .invalidBase64URL, "expected zero unused bits in the last base64url character, found non-zero bits")
            }
            var position = failure
            while position < count, decodeTable[Int(input[position])] != 0xFF { position += 1 }
            let found: String
            switch position < count ? input[position] : 0 {
            case UInt8(ascii: "="): found = "padding '='"
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): found = "whitespace"
            default: found = "a character outside the base64url alphabet"
            }
            throw JOSEError(
                .invalidBase64URL,
                "expected only base64url characters (A-Z a-z 0-9 - _), found \(found) at offset \(position)")
        }
        return output
    }
}
