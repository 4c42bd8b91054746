/// A JSON value whose object keys keep the order they were written in, printed with two-space indentation.
///
/// The matrix JSON is read by people as well as programs, so it follows the contract's key order instead of
/// sorting keys.
indirect enum JSONDocument: Sendable, Hashable {
    case string(String)
    case integer(Int)
    case bool(Bool)
    case null
    case array([JSONDocument])
    case object([Member])

    struct Member: Sendable, Hashable {
        let key: String
        let value: JSONDocument

        init(_ key: String, _ value: JSONDocument) {
            self.key = key
            self.value = value
        }
    }

    /// The pretty-printed document, ending with a newline.
    func printed() -> String {
        var output = ""
        write(into: &output, indent: 0)
        output += "\n"
        return output
    }

    private func write(into output: inout String, indent: Int) {
        switch self {
        case .string(let text): Self.quote(text, into: &output)
        case .integer(let value): output += String(value)
        case .bool(let value): output += value ? "true" : "false"
        case .null: output += "null"
        case .array(let items):
            guard !items.isEmpty else {
                output += "[]"
                return
            }
            output += "[\n"
            for (index, item) in items.enumerated() {
                output += String(repeating: " ", count: indent + 2)
                item.write(into: &output, indent: indent + 2)
                output += index + 1 < items.count ? ",\n" : "\n"
            }
            output += String(repeating: " ", count: indent) + "]"
        case .object(let members):
            guard !members.isEmpty else {
                output += "{}"
                return
            }
            output += "{\n"
            for (index, member) in members.enumerated() {
                output += String(repeating: " ", count: indent + 2)
                Self.quote(member.key, into: &output)
                output += ": "
                member.value.write(into: &output, indent: indent + 2)
                output += index + 1 < members.count ? ",\n" : "\n"
            }
            output += String(repeating: " ", count: indent) + "}"
        }
    }

    /// Writes `text` as a JSON string: `"` and `\` escaped, control characters as `\n`, `\t`… or `\u00XX`.
    static func quote(_ text: String, into output: inout String) {
        output += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}
