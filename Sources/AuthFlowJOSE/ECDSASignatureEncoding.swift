/// Conversion between JOSE's raw `r‖s` ECDSA signatures and the DER `ECDSA-Sig-Value` OpenSSL
/// speaks. Pure byte manipulation; the inputs are bounded by the curve size.
enum ECDSASignatureEncoding {
    /// DER for `r‖s` (each half `half` bytes). Returns an empty array if `raw` has the wrong length.
    static func der(fromRaw raw: UnsafeBufferPointer<UInt8>, half: Int) -> [UInt8] {
        guard raw.count == 2 * half else { return [] }
        var r = integer(UnsafeBufferPointer(rebasing: raw[0..<half]))
        let s = integer(UnsafeBufferPointer(rebasing: raw[half..<(2 * half)]))
        var content: [UInt8] = []
        content.reserveCapacity(r.count + s.count)
        content.append(contentsOf: r)
        content.append(contentsOf: s)
        r.removeAll()
        var out: [UInt8] = [0x30]
        out.reserveCapacity(content.count + 3)
        appendLength(content.count, to: &out)
        out.append(contentsOf: content)
        return out
    }

    /// A DER INTEGER (tag, length, minimal big-endian value) for an unsigned big-endian number.
    private static func integer(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var start = 0
        while start < bytes.count - 1, bytes[start] == 0 { start += 1 }
        let needsPad = bytes[start] & 0x80 != 0
        let length = bytes.count - start + (needsPad ? 1 : 0)
        var out: [UInt8] = [0x02]
        appendLength(length, to: &out)
        if needsPad { out.append(0) }
        out.append(contentsOf: bytes[start...])
        return out
    }

    private static func appendLength(_ length: Int, to out: inout [UInt8]) {
        if length < 0x80 {
            out.append(UInt8(length))
        } else if length < 0x100 {
            out.append(0x81)
            out.append(UInt8(length))
        } else {
            out.append(0x82)
            out.append(UInt8(length >> 8))
            out.append(UInt8(length & 0xFF))
        }
    }

    /// `r‖s` from a DER signature produced by OpenSSL; `nil` if it does not parse or a value is
    /// longer than `half` bytes.
    static func raw(fromDER der: UnsafeBufferPointer<UInt8>, half: Int) -> [UInt8]? {
        var index = 0
        func readLength() -> Int? {
            guard index < der.count else { return nil }
            let first = der[index]
            index += 1
            if first < 0x80 { return Int(first) }
            let count = Int(first & 0x7F)
            guard count >= 1, count <= 2, index + count <= der.count else { return nil }
            var length = 0
            for _ in 0..<count {
                length = length << 8 | Int(der[index])
                index += 1
            }
            return length
        }
        guard der.count > 2, der[0] == 0x30 else { return nil }
        index = 1
        guard let sequenceLength = readLength(), index + sequenceLength == der.count else { return nil }
        var out = [UInt8](repeating: 0, count: 2 * half)
        for part in 0..<2 {
            guard index < der.count, der[index] == 0x02 else { return nil }
            index += 1
            guard let length = readLength(), length >= 1, index + length <= der.count else { return nil }
            var start = index
            var valueLength = length
            while valueLength > 1, der[start] == 0 {
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
