extension ECDSASignatureEncoding {
    /// `r‖s` (each `half` bytes) from a DER `ECDSA-Sig-Value` (SEQUENCE of two INTEGERs) in strict DER
    /// only, as WebAuthn ES256 signatures are: definite minimal lengths, each integer positive and minimal
    /// (a leading zero byte only before a byte with its top bit set), at most `half` bytes of value, and
    /// nothing after the sequence. `nil` for anything else.
    static func strictRaw(fromDER der: UnsafeBufferPointer<UInt8>, half: Int) -> [UInt8]? {
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
