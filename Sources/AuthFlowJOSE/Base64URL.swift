/// Unpadded base64url (RFC 4648 §5) as JOSE uses it, working on bytes.
///
/// Decoding is strict: padding, whitespace, characters outside `A–Z a–z 0–9 - _`, an impossible
/// length and non-zero unused trailing bits are all refused, so every byte string has exactly one
/// accepted encoding.
public enum Base64URL {
    static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Two characters per entry: entry `k` (12 bits) holds the character for `k >> 6` in its low
    /// byte and the one for `k & 63` in its high byte, so a 3-byte group encodes with two lookups.
    static let characterPairs: [UInt16] = (0..<4096).map { UInt16(alphabet[$0 >> 6]) | UInt16(alphabet[$0 & 63]) << 8 }

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
        guard length > 0 else { return }
        // Encoded into scratch space, then copied in one go: filling the array with zeros first
        // and overwriting them costs more than the copy.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: length) { scratch in
            encode(buffer, into: scratch.baseAddress!)
            output.append(contentsOf: UnsafeBufferPointer(scratch))
        }
    }

    /// Appends the encoding of `buffer` to `output`.
    static func append(_ buffer: UnsafeBufferPointer<UInt8>, to output: inout ByteWriter) {
        let length = encodedLength(buffer.count)
        guard length > 0 else { return }
        encode(buffer, into: output.reserve(length))
        output.advance(by: length)
    }

    /// Writes exactly `encodedLength(input.count)` bytes to `output`.
    static func encode(_ input: UnsafeBufferPointer<UInt8>, into output: UnsafeMutablePointer<UInt8>) {
        characterPairs.withUnsafeBufferPointer { pairs in
            alphabet.withUnsafeBufferPointer { table in
                var i = 0
                var o = 0
                let count = input.count
                while i + 3 <= count {
                    let value = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2])
                    let characters = UInt32(pairs[Int(value >> 12)]) | UInt32(pairs[Int(value & 0xFFF)]) << 16
                    UnsafeMutableRawPointer(output + o).storeBytes(of: characters.littleEndian, as: UInt32.self)
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
    }

    /// Decodes strict unpadded base64url.
    /// - Throws: `JOSEError` `.invalidBase64URL` naming the offset of the first bad character,
    ///   or the impossible length, or non-zero unused bits.
    package static func decode(_ text: some StringProtocol) throws(JOSEError) -> [UInt8] {
        let utf8 = text.utf8
        if let result = utf8.withContiguousStorageIfAvailable({ buffer in
            Result { () throws(JOSEError) in try decode(buffer: buffer) }
        }) {
            return try result.get()
        }
        return try Array(utf8).withUnsafeBufferPointer { buffer throws(JOSEError) in try decode(buffer: buffer) }
    }

    /// Decodes `input` (whose length is not 1 modulo 4) into `out`, which has room for
    /// ``decodedLength(_:)`` plus ``slack`` bytes. Returns `Int.min` on success,
    /// the offset of the quantum holding a byte outside the alphabet, or -1 for non-zero unused bits.
    private static func decode(
        _ input: UnsafeBufferPointer<UInt8>, into out: UnsafeMutablePointer<UInt8>, tables: UnsafePointer<UInt32>,
        table: UnsafePointer<UInt8>
    ) -> Int {
        let count = input.count
        guard count > 0, let source = input.baseAddress else { return Int.min }
        var i = 0
        var o = 0
        // Two quanta per step: one 8-byte load in, one 8-byte store out (6 bytes of output and 2
        // bytes of slack the caller provides, overwritten by the next step or never counted).
        while i + 8 <= count {
            let word = UInt64(littleEndian: UnsafeRawPointer(source + i).loadUnaligned(as: UInt64.self))
            let first =
                tables[Int(word & 0xFF)] | tables[256 + Int((word >> 8) & 0xFF)]
                | tables[512 + Int((word >> 16) & 0xFF)] | tables[768 + Int((word >> 24) & 0xFF)]
            let second =
                tables[Int((word >> 32) & 0xFF)] | tables[256 + Int((word >> 40) & 0xFF)]
                | tables[512 + Int((word >> 48) & 0xFF)] | tables[768 + Int(word >> 56)]
            // The caller looks for the bad character from here on.
            if (first | second) & 0xFF00_0000 != 0 { return i }
            // Each value is three bytes, most significant first: byte-swapped and shifted, they are in memory order.
            let packed = UInt64(first.byteSwapped >> 8) | UInt64(second.byteSwapped >> 8) << 24
            UnsafeMutableRawPointer(out + o).storeBytes(of: packed.littleEndian, as: UInt64.self)
            i += 8
            o += 6
        }
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

    /// Bytes past the decoded length that ``decode(_:into:tables:table:)`` may write.
    static let slack = 2

    /// The length of the bytes `count` base64url characters (not 1 modulo 4) decode to.
    static func decodedLength(_ count: Int) -> Int { (count / 4) * 3 + max(count % 4 - 1, 0) }

    /// Decodes strict unpadded base64url bytes.
    static func decode(buffer input: UnsafeBufferPointer<UInt8>) throws(JOSEError) -> [UInt8] {
        let count = input.count
        try checkLength(count)
        if count == 0 { return [] }
        let outputLength = decodedLength(count)
        var failure = Int.min
        let output = [UInt8](unsafeUninitializedCapacity: outputLength + slack) { out, initialized in
            failure = decode(input, into: out.baseAddress!)
            initialized = failure == Int.min ? outputLength : 0
        }
        if failure != Int.min { throw error(failure, in: input) }
        return output
    }

    /// Decodes strict unpadded base64url bytes into temporary storage and calls `body` with them,
    /// for bytes that are not kept (a signature). `body` runs only when decoding succeeded.
    /// - Throws: `JOSEError` `.invalidBase64URL` as ``decode(buffer:)``, else what `body` throws.
    @inline(__always)
    static func withDecoded<Value>(
        buffer input: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) throws(JOSEError) -> Value
    ) throws(JOSEError) -> Value {
        let count = input.count
        try checkLength(count)
        let outputLength = decodedLength(count)
        return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: outputLength + slack) {
            out throws(JOSEError) -> Value in
            let failure = count > 0 ? decode(input, into: out.baseAddress!) : Int.min
            guard failure == Int.min else { throw error(failure, in: input) }
            return try body(UnsafeBufferPointer(rebasing: out[0..<outputLength]))
        }
    }

    private static func checkLength(_ count: Int) throws(JOSEError) {
        if count % 4 == 1 {
            throw JOSEError(
                .invalidBase64URL, "expected a base64url length that is not 1 modulo 4, found \(count) characters")
        }
    }

    private static func decode(_ input: UnsafeBufferPointer<UInt8>, into out: UnsafeMutablePointer<UInt8>) -> Int {
        shiftedTables.withUnsafeBufferPointer { tables in
            decodeTable.withUnsafeBufferPointer { table in
                decode(input, into: out, tables: tables.baseAddress!, table: table.baseAddress!)
            }
        }
    }

    /// The error for a failure `decode(_:into:tables:table:)` reported for `input`.
    private static func error(_ failure: Int, in input: UnsafeBufferPointer<UInt8>) -> JOSEError {
        if failure < 0 {
            return JOSEError(
                .invalidBase64URL, "expected zero unused bits in the last base64url character, found non-zero bits")
        }
        var position = failure
        while position < input.count, decodeTable[Int(input[position])] != 0xFF { position += 1 }
        let found: String
        switch position < input.count ? input[position] : 0 {
        case UInt8(ascii: "="): found = "padding '='"
        case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): found = "whitespace"
        default: found = "a character outside the base64url alphabet"
        }
        return JOSEError(
            .invalidBase64URL,
            "expected only base64url characters (A-Z a-z 0-9 - _), found \(found) at offset \(position)")
    }
}
