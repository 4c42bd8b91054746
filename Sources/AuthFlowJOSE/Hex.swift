/// Hexadecimal text of bytes, the one encoder the package's modules share (digests in Redis keys and
/// PostgreSQL `bytea`, Facebook's `appsecret_proof`, request and key ids, nonces hashed for Apple).
///
/// It lives in JOSE because every module that writes hex already depends on it, and what it writes is
/// mostly JOSE's own output (digests, MACs, random bytes). `AuthFlowHTTP` cannot depend on JOSE (it has
/// no C), so its percent-encoding keeps its own uppercase digits (RFC 3986 §2.1).
package enum Hex {
    /// The sixteen lowercase digits, in order.
    package static let lowercaseDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Two lowercase digits per byte, high nibble first.
    package static func encode(_ bytes: some Sequence<UInt8>) -> String {
        if let text = bytes.withContiguousStorageIfAvailable({ encode(buffer: $0) }) { return text }
        return Array(bytes).withUnsafeBufferPointer { encode(buffer: $0) }
    }

    static func encode(buffer bytes: UnsafeBufferPointer<UInt8>) -> String {
        String(unsafeUninitializedCapacity: 2 * bytes.count) { text in
            write(bytes, to: text)
            return 2 * bytes.count
        }
    }

    /// Writes two lowercase digits per byte of `bytes` to the start of `output`, for a caller that builds the
    /// text in place (a request id straight from a random buffer, with no copy of the bytes).
    ///
    /// - Precondition: `output` holds at least `2 * bytes.count` bytes.
    package static func write(_ bytes: UnsafeBufferPointer<UInt8>, to output: UnsafeMutableBufferPointer<UInt8>) {
        precondition(output.count >= 2 * bytes.count, "expected room for two hex digits a byte")
        for (index, byte) in bytes.enumerated() {
            output[2 * index] = digit(byte >> 4)
            output[2 * index + 1] = digit(byte & 0x0F)
        }
    }

    /// `0`–`9`, `a`–`f` for a value below 16.
    @inline(__always) static func digit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") - 10 + value
    }

    /// The bytes of `text` (digits in either case, two per byte), or `nil` when its length is odd or it
    /// holds anything but hex digits.
    package static func decode(_ text: some StringProtocol) -> [UInt8]? {
        let utf8 = text.utf8
        guard utf8.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count / 2)
        var index = utf8.startIndex
        while index != utf8.endIndex {
            let next = utf8.index(after: index)
            guard let high = value(utf8[index]), let low = value(utf8[next]) else { return nil }
            bytes.append(high << 4 | low)
            index = utf8.index(after: next)
        }
        return bytes
    }

    /// The value of one hex digit, or `nil`.
    static func value(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
