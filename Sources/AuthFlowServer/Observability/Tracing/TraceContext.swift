/// A W3C Trace Context position (<https://www.w3.org/TR/trace-context/>): the trace, the span a child continues
/// from, the trace flags and the vendors' `tracestate`.
package struct TraceContext: Sendable, Hashable {
    /// 16 bytes, never all zero.
    package let traceID: [UInt8]
    /// 8 bytes, never all zero.
    package let spanID: [UInt8]
    /// The trace flags (bit 0: sampled).
    package let flags: UInt8
    /// The `tracestate` header, passed on unchanged when it was well-formed; `nil` when absent or refused.
    package let state: String?

    package init(traceID: [UInt8], spanID: [UInt8], flags: UInt8 = 1, state: String? = nil) {
        self.traceID = traceID
        self.spanID = spanID
        self.flags = flags
        self.state = state
    }

    /// The `traceparent` header naming this span: `00-{trace id}-{span id}-{flags}` in lowercase hex.
    package var traceparent: String {
        "00-" + Self.hex(traceID) + "-" + Self.hex(spanID) + "-" + Self.hex([flags])
    }

    /// The context a `traceparent` (and `tracestate`) header describes, or `nil` when the header is malformed:
    /// version `00` with exactly 55 characters (a later version with at least 55, the first 55 read and the rest
    /// after a `-` ignored, as the specification asks), lowercase hex ids that are not all zero, version `ff`
    /// refused. A malformed `tracestate` is dropped; the `traceparent` still counts.
    package static func parse(traceparent: String?, tracestate: String?) -> TraceContext? {
        guard let traceparent else { return nil }
        let bytes = Array(traceparent.utf8)
        guard bytes.count >= 55, bytes.count <= 512 else { return nil }
        guard let version = decodeHex(bytes[0..<2]), version != [0xFF] else { return nil }
        if version == [0] {
            guard bytes.count == 55 else { return nil }
        } else if bytes.count > 55, bytes[55] != UInt8(ascii: "-") {
            return nil
        }
        guard bytes[2] == UInt8(ascii: "-"), bytes[35] == UInt8(ascii: "-"), bytes[52] == UInt8(ascii: "-"),
            let traceID = decodeHex(bytes[3..<35]), let spanID = decodeHex(bytes[36..<52]),
            let flags = decodeHex(bytes[53..<55]),
            traceID.contains(where: { $0 != 0 }), spanID.contains(where: { $0 != 0 })
        else { return nil }
        return TraceContext(
            traceID: traceID, spanID: spanID, flags: flags[0],
            state: tracestate.flatMap { isWellFormedState($0) ? $0 : nil })
    }

    /// Whether `state` is a `tracestate` value to pass on: at most 512 bytes and 32 members, each `key=value`
    /// with a key of `[a-z0-9_*/@-]` (starting with a letter or digit) and a value of printable ASCII
    /// without `,` or `=` (a trailing space aside); empty members (`,,`) are allowed.
    static func isWellFormedState(_ state: String) -> Bool {
        guard state.utf8.count <= 512 else { return false }
        let members = state.split(separator: ",", omittingEmptySubsequences: false)
        guard members.count <= 32 else { return false }
        for member in members {
            let trimmed = member.drop(while: { $0 == " " || $0 == "\t" })
            if trimmed.allSatisfy({ $0 == " " || $0 == "\t" }) { continue }
            guard let equals = trimmed.firstIndex(of: "=") else { return false }
            let key = trimmed[..<equals].utf8
            var value = trimmed[trimmed.index(after: equals)...]
            while value.last == " " || value.last == "\t" { value = value.dropLast() }
            guard let first = key.first, key.count <= 256, isLowerAlnum(first),
                key.allSatisfy({ isLowerAlnum($0) || "_-*/@".utf8.contains($0) }),
                !value.isEmpty, value.utf8.count <= 256,
                value.utf8.allSatisfy({ $0 >= 0x20 && $0 <= 0x7E && $0 != UInt8(ascii: ",") && $0 != UInt8(ascii: "=") }
                )
            else { return false }
        }
        return true
    }

    private static func isLowerAlnum(_ byte: UInt8) -> Bool {
        (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
    }

    /// Lowercase hex only (the specification refuses uppercase); `nil` for anything else.
    static func decodeHex(_ digits: ArraySlice<UInt8>) -> [UInt8]? {
        guard digits.count % 2 == 0 else { return nil }
        var result: [UInt8] = []
        result.reserveCapacity(digits.count / 2)
        var index = digits.startIndex
        while index < digits.endIndex {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            result.append(high << 4 | low)
            index += 2
        }
        return result
    }

    private static func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
