/// Conversion between JOSE's raw `r‖s` ECDSA signatures and the DER `ECDSA-Sig-Value` OpenSSL
/// speaks. Pure byte manipulation; the inputs are bounded by the curve size.
enum ECDSASignatureEncoding {
    /// DER for `r‖s` (each half `half` bytes). Returns an empty array if `raw` has the wrong length.
    static func der(fromRaw raw: UnsafeBufferPointer<UInt8>, half: Int) -> [UInt8] {
        withDER(fromRaw: raw, half: half) { Array($0) }
    }

    /// Calls `body` with the DER for `r‖s` (each half `half` bytes), written into temporary
    /// storage rather than built in arrays; with an empty buffer if `raw` has the wrong length.
    static func withDER<Result>(
        fromRaw raw: UnsafeBufferPointer<UInt8>, half: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Result
    ) -> Result {
        guard half > 0, raw.count == 2 * half else { return body(UnsafeBufferPointer(start: nil, count: 0)) }
        let r = UnsafeBufferPointer(rebasing: raw[0..<half])
        let s = UnsafeBufferPointer(rebasing: raw[half..<(2 * half)])
        let rLength = integerLength(r)
        let sLength = integerLength(s)
        let contentLength = 1 + lengthOfLength(rLength) + rLength + 1 + lengthOfLength(sLength) + sLength
        let total = 1 + lengthOfLength(contentLength) + contentLength
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: total) { out in
            var index = 0
            out[index] = 0x30
            index += 1
            writeLength(contentLength, into: out, at: &index)
            writeInteger(r, length: rLength, into: out, at: &index)
            writeInteger(s, length: sLength, into: out, at: &index)
            return body(UnsafeBufferPointer(rebasing: out[0..<index]))
        }
    }

    /// The content length of the DER INTEGER for an unsigned big-endian number: the minimal
    /// big-endian value, with a zero byte in front when its top bit is set.
    private static func integerLength(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var start = 0
        while start < bytes.count - 1, bytes[start] == 0 { start += 1 }
        return bytes.count - start + (bytes[start] & 0x80 != 0 ? 1 : 0)
    }

    /// Writes a DER INTEGER (tag, length, minimal big-endian value) of content length `length`.
    private static func writeInteger(
        _ bytes: UnsafeBufferPointer<UInt8>, length: Int, into out: UnsafeMutableBufferPointer<UInt8>,
        at index: inout Int
    ) {
        out[index] = 0x02
        index += 1
        writeLength(length, into: out, at: &index)
        var start = 0
        while start < bytes.count - 1, bytes[start] == 0 { start += 1 }
        if bytes[start] & 0x80 != 0 {
            out[index] = 0
            index += 1
        }
        for position in start..<bytes.count {
            out[index] = bytes[position]
            index += 1
        }
    }

    /// How many bytes the DER length field for `length` takes.
    private static func lengthOfLength(_ length: Int) -> Int { length < 0x80 ? 1 : length < 0x100 ? 2 : 3 }

    private static func writeLength(_ length: Int, into out: UnsafeMutableBufferPointer<UInt8>, at index: inout Int) {
        if length < 0x80 {
            out[index] = UInt8(length)
            index += 1
        } else if length < 0x100 {
            out[index] = 0x81
            out[index + 1] = UInt8(length)
            index += 2
        } else {
            out[index] = 0x82
            out[index + 1] = UInt8(length >> 8)
            out[index + 2] = UInt8(length & 0xFF)
            index += 3
        }
    }

    /// `r‖s` (each `half` bytes) from a DER `ECDSA-Sig-Value` (SEQUENCE of two INTEGERs) in strict DER only,
    /// which is what OpenSSL writes and what WebAuthn requires of ES256 signatures: definite minimal lengths,
    /// each integer positive and minimal (a leading zero byte only before a byte with its top bit set), at most
    /// `half` bytes of value, and nothing after the sequence. `nil` for anything else.
    static func raw(fromDER der: UnsafeBufferPointer<UInt8>, half: Int) -> [UInt8]? {
        var index = 0
        func readLength() -> Int? {
            guard index < der.count else { return nil }
            let first = der[index]
            index += 1
            if first < 0x80 { return Int(first) }
            // One length byte at most (signatures up to P-521 fit), and only for lengths of 128 or more.
            guard first == 0x81, index < der.count, der[index] >= 0x80 else { return nil }
            index += 1
            return Int(der[index - 1])
        }
        guard der.count >= 8, der[0] == 0x30 else { return nil }
        index = 1
        guard let sequenceLength = readLength(), index + sequenceLength == der.count else { return nil }
        var out = [UInt8](repeating: 0, count: 2 * half)
        for part in 0..<2 {
            guard index < der.count, der[index] == 0x02 else { return nil }
            index += 1
            guard let length = readLength(), length >= 1, index + length <= der.count else { return nil }
            let first = der[index]
            guard first & 0x80 == 0 else { return nil }
            var start = index
            var valueLength = length
            if first == 0, length > 1 {
                guard der[index + 1] & 0x80 != 0 else { return nil }
                start += 1
                valueLength -= 1
            }
            guard valueLength <= half else { return nil }
            let offset = part * half + (half - valueLength)
            for k in 0..<valueLength { out[offset + k] = der[start + k] }
            index += length
        }
        return index == der.count ? out : nil
    }
}
