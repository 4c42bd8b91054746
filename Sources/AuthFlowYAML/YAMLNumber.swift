/// Number syntax of the YAML 1.2 core schema, matched byte by byte.
enum YAMLNumber {
    /// `[-+]?[0-9]+`, `0o[0-7]+` or `0x[0-9a-fA-F]+`, when the value fits in `Int64`.
    static func parseInteger(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { return nil }
        if bytes.count > 2, bytes[0] == UInt8(ascii: "0") {
            if bytes[1] == UInt8(ascii: "o") { return parseDigits(bytes[2...], radix: 8, negative: false) }
            if bytes[1] == UInt8(ascii: "x") { return parseDigits(bytes[2...], radix: 16, negative: false) }
        }
        var start = bytes.startIndex
        var negative = false
        if bytes[start] == UInt8(ascii: "-") || bytes[start] == UInt8(ascii: "+") {
            negative = bytes[start] == UInt8(ascii: "-")
            start += 1
        }
        return parseDigits(bytes[start...], radix: 10, negative: negative)
    }

    private static func parseDigits(_ digits: ArraySlice<UInt8>, radix: Int64, negative: Bool) -> Int64? {
        guard !digits.isEmpty else { return nil }
        var result: Int64 = 0
        for byte in digits {
            let digit: Int64
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = Int64(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = Int64(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = Int64(byte - UInt8(ascii: "A") + 10)
            default: return nil
            }
            guard digit < radix else { return nil }
            let (shifted, overflowA) = result.multipliedReportingOverflow(by: radix)
            let (next, overflowB) =
                negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
            guard !overflowA, !overflowB else { return nil }
            result = next
        }
        return result
    }

    /// `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`, `[-+]?.inf` (any case form of the core
    /// schema) or `.nan`.
    static func parseFloat(_ text: String) -> Double? {
        switch text {
        case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF": return .infinity
        case "-.inf", "-.Inf", "-.INF": return -.infinity
        case ".nan", ".NaN", ".NAN": return .nan
        default: break
        }
        let bytes = Array(text.utf8)
        var index = 0
        func digits() -> Int {
            let start = index
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                index += 1
            }
            return index - start
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") { index += 1 }
        let integerDigits = digits()
        var fractionDigits = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            fractionDigits = digits()
        }
        guard integerDigits > 0 || fractionDigits > 0 else { return nil }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
                index += 1
            }
            guard digits() > 0 else { return nil }
        }
        guard index == bytes.count else { return nil }
        return Double(text)
    }
}
