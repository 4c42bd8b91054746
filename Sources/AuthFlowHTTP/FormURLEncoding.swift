/// `application/x-www-form-urlencoded` encoding and decoding, as used for OAuth token requests,
/// query strings and form-POST callbacks.
///
/// Encoding leaves the RFC 3986 unreserved bytes (`A-Z a-z 0-9 - . _ ~`) as they are, writes a
/// space as `+` and every other UTF-8 byte as `%XX` (upper-case hex), as Go's `url.QueryEscape`
/// and Python's `quote_plus` do.
///
/// Decoding is tolerant by design, because it reads untrusted input and must neither crash nor
/// throw on it: `+` becomes a space, a valid `%XX` becomes its byte, and a malformed escape (`%`
/// not followed by two hex digits) is kept literally. Bytes that do not form valid UTF-8 after
/// decoding are replaced with U+FFFD. Callers that need to refuse such input compare the values
/// they expect (a `state` or `code` that was altered this way will simply not match).
public enum FormURLEncoding {
    /// Encodes fields as `name=value&name=value`, in the given order.
    package static func encode(_ fields: [(String, String)]) -> String {
        var out: [UInt8] = []
        for (index, (name, value)) in fields.enumerated() {
            if index > 0 { out.append(UInt8(ascii: "&")) }
            appendEscaped(name, to: &out)
            out.append(UInt8(ascii: "="))
            appendEscaped(value, to: &out)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Encodes one component (a name or a value).
    package static func escape(_ component: String) -> String {
        var out: [UInt8] = []
        appendEscaped(component, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes `name=value&...` into pairs, in order. Empty pieces (`a=1&&b=2`) are skipped; a
    /// piece without `=` is a name with an empty value. Never throws; see the type's notes on
    /// malformed escapes.
    public static func decode(_ text: some StringProtocol) -> [(String, String)] {
        var result: [(String, String)] = []
        for piece in text.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            if let equals = piece.firstIndex(of: UInt8(ascii: "=")) {
                result.append((unescape(piece[..<equals]), unescape(piece[piece.index(after: equals)...])))
            } else {
                result.append((unescape(piece), ""))
            }
        }
        return result
    }

    /// The decoded values of the fields called `name`, in order, decoding no other field (a name is compared
    /// undecoded unless it holds an escape). Empty pieces are skipped, as in ``decode(_:)``.
    package static func values(named name: String, in bytes: some Collection<UInt8>) -> [String] {
        let wanted = Array(name.utf8)
        var values: [String] = []
        for piece in bytes.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let equals = piece.firstIndex(of: UInt8(ascii: "=")) ?? piece.endIndex
            let field = piece[..<equals]
            let escaped = field.contains { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }
            guard escaped ? Array(unescape(field).utf8) == wanted : field.elementsEqual(wanted) else { continue }
            values.append(equals == piece.endIndex ? "" : unescape(piece[piece.index(after: equals)...]))
        }
        return values
    }

    /// Decodes one component: `+` → space, `%XX` → byte, malformed escapes kept literally.
    package static func unescape(_ component: some StringProtocol) -> String {
        unescape(component.utf8)
    }

    static func unescape(_ bytes: some Collection<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                let first = bytes.index(after: index)
                if first != bytes.endIndex, let high = hexValue(bytes[first]) {
                    let second = bytes.index(after: first)
                    if second != bytes.endIndex, let low = hexValue(bytes[second]) {
                        out.append(high << 4 | low)
                        index = bytes.index(after: second)
                        continue
                    }
                }
                out.append(byte)
            } else if byte == UInt8(ascii: "+") {
                out.append(UInt8(ascii: " "))
            } else {
                out.append(byte)
            }
            index = bytes.index(after: index)
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func appendEscaped(_ component: String, to out: inout [UInt8]) {
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in component.utf8 {
            if isUnreserved(byte) {
                out.append(byte)
            } else if byte == UInt8(ascii: " ") {
                out.append(UInt8(ascii: "+"))
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            }
        }
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
