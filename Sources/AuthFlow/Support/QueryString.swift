/// Builds URL query strings with RFC 3986 percent-encoding (space as `%20`, as Apple expects for scopes).
enum QueryString {
    /// `name=value&…`, every byte outside the unreserved set percent-encoded.
    static func encode(_ pairs: [(String, String)]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        for (index, pair) in pairs.enumerated() {
            if index > 0 { out.append(UInt8(ascii: "&")) }
            append(pair.0, to: &out)
            out.append(UInt8(ascii: "="))
            append(pair.1, to: &out)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `url` with `pairs` appended as its query (after `&` when it already has one).
    static func appending(_ pairs: [(String, String)], to url: String) -> String {
        guard !pairs.isEmpty else { return url }
        let separator = url.utf8.contains(UInt8(ascii: "?")) ? "&" : "?"
        return url + separator + encode(pairs)
    }

    private static func append(_ text: String, to out: inout [UInt8]) {
        var text = text
        // Over the contiguous UTF-8 bytes, hex digits computed: a sign-in start encodes a few hundred bytes.
        text.withUTF8 { bytes in
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                    UInt8(ascii: "~"):
                    out.append(byte)
                default:
                    out.append(UInt8(ascii: "%"))
                    out.append(hexDigit(byte >> 4))
                    out.append(hexDigit(byte & 0x0F))
                }
            }
        }
    }

    /// `0`–`9`, `A`–`F` for a value below 16.
    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10
    }
}
