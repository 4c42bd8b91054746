/// Builds URL query strings with RFC 3986 percent-encoding (space as `%20`, as Apple expects for scopes).
///
/// The result is measured first and then written once into a string of exactly that size: a sign-in start
/// builds an authorization URL of a few hundred bytes on every request, so no buffer is regrown or copied.
enum QueryString {
    /// `name=value&…`, every byte outside the unreserved set percent-encoded.
    static func encode(_ pairs: [(String, String)]) -> String {
        build(prefix: "", separator: nil, pairs)
    }

    /// `url` with `pairs` appended as its query (after `&` when it already has one).
    static func appending(_ pairs: [(String, String)], to url: String) -> String {
        guard !pairs.isEmpty else { return url }
        let separator = url.utf8.contains(UInt8(ascii: "?")) ? UInt8(ascii: "&") : UInt8(ascii: "?")
        return build(prefix: url, separator: separator, pairs)
    }

    /// `prefix`, then `separator` when there is one, then the encoded pairs.
    private static func build(prefix: String, separator: UInt8?, _ pairs: [(String, String)]) -> String {
        // Each name's and value's encoded length, measured once: a text whose length does not grow (a base64url
        // state, nonce or challenge, a client id) is then copied whole instead of byte by byte.
        withUnsafeTemporaryAllocation(of: Int.self, capacity: 2 * pairs.count) { lengths in
            var length = prefix.utf8.count + (separator == nil ? 0 : 1) + max(0, pairs.count - 1)
            for (position, (name, value)) in pairs.enumerated() {
                lengths[2 * position] = encodedLength(name)
                lengths[2 * position + 1] = encodedLength(value)
                length += lengths[2 * position] + 1 + lengths[2 * position + 1]
            }
            return String(unsafeUninitializedCapacity: length) { out in
                guard let base = out.baseAddress else { return 0 }
                var next = base
                copy(prefix, to: &next)
                if let separator {
                    next.pointee = separator
                    next += 1
                }
                for (position, (name, value)) in pairs.enumerated() {
                    if position > 0 {
                        next.pointee = UInt8(ascii: "&")
                        next += 1
                    }
                    write(name, encodedLength: lengths[2 * position], to: &next)
                    next.pointee = UInt8(ascii: "=")
                    next += 1
                    write(value, encodedLength: lengths[2 * position + 1], to: &next)
                }
                return next - base
            }
        }
    }

    /// The length of `text` once encoded: three bytes for every byte outside the unreserved set.
    private static func encodedLength(_ text: String) -> Int {
        var text = text
        return text.withUTF8 { bytes in
            extraBytes.withUnsafeBufferPointer { extra in
                guard let table = extra.baseAddress else { return bytes.count }
                var length = bytes.count
                for byte in bytes { length &+= Int(table[Int(byte)]) }
                return length
            }
        }
    }

    /// Copies `text`'s UTF-8 bytes to `next` and moves it past them.
    private static func copy(_ text: String, to next: inout UnsafeMutablePointer<UInt8>) {
        var text = text
        text.withUTF8 { bytes in
            guard let source = bytes.baseAddress else { return }
            next.initialize(from: source, count: bytes.count)
            next += bytes.count
        }
    }

    /// Writes `text` percent-encoded (`encodedLength` bytes, as ``encodedLength(_:)`` measured) to `next` and moves
    /// it past them. The caller sized the buffer for every measured length.
    private static func write(_ text: String, encodedLength: Int, to next: inout UnsafeMutablePointer<UInt8>) {
        var text = text
        text.withUTF8 { bytes in
            guard let source = bytes.baseAddress else { return }
            if encodedLength == bytes.count {
                next.initialize(from: source, count: bytes.count)
                next += bytes.count
                return
            }
            extraBytes.withUnsafeBufferPointer { extra in
                guard let table = extra.baseAddress else { return }
                for byte in bytes {
                    if table[Int(byte)] == 0 {
                        next.pointee = byte
                        next += 1
                    } else {
                        next[0] = UInt8(ascii: "%")
                        next[1] = hexDigit(byte >> 4)
                        next[2] = hexDigit(byte & 0x0F)
                        next += 3
                    }
                }
            }
        }
    }

    /// For every byte value, how many bytes encoding it adds: 0 for the unreserved set, 2 (`%XX`) for the rest.
    /// One table load per byte, without a branch when measuring.
    private static let extraBytes: [UInt8] = (0...255).map { isUnreserved(UInt8($0)) ? 0 : 2 }

    /// Whether `byte` is in RFC 3986's unreserved set (`A-Z a-z 0-9 - . _ ~`): two 64-bit masks, bytes 0–63
    /// and 64–127, one shift per byte.
    @inline(__always) static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case 0..<64: return (0x03ff_6000_0000_0000 as UInt64) >> UInt64(byte) & 1 == 1
        case 64..<128: return (0x47ff_fffe_87ff_fffe as UInt64) >> UInt64(byte - 64) & 1 == 1
        default: return false
        }
    }

    /// `0`–`9`, `A`–`F` for a value below 16.
    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10
    }
}
