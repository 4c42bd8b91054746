public import AuthFlowJSON

/// Why a YAML document could not be parsed, and where.
///
/// Its `description` is what a compiler would print:
/// ```
/// providers.yaml:3:15: expected a boolean, found "maybe"
///   signup: maybe
///           ^
/// ```
public struct YAMLError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable identifier of the kind of failure, for code that switches on it.
    public typealias Code = ErrorCode<YAMLError>

    /// The kind of failure.
    public let code: Code
    /// What was expected and what was found.
    public let message: String
    /// The name of the source the document came from, as given to the parser.
    public let fileName: String
    /// Where the problem is, when known.
    public let mark: YAMLMark?
    /// The source line at ``mark``, when known.
    public let sourceLine: String?

    /// Creates an error.
    public init(code: Code, message: String, fileName: String, mark: YAMLMark?, sourceLine: String?) {
        self.code = code
        self.message = message
        self.fileName = fileName
        self.mark = mark
        self.sourceLine = sourceLine
    }

    /// Creates an error at `mark`, taking the source line from `source`.
    init(code: Code, message: String, fileName: String, mark: YAMLMark?, source: YAMLSourceText) {
        self.init(
            code: code, message: message, fileName: fileName, mark: mark,
            sourceLine: mark.flatMap { source.line($0.line) })
    }

    /// `file:line:column: message`, then the source line and a caret under the column.
    public var description: String {
        Self.render(message: message, fileName: fileName, mark: mark, sourceLine: sourceLine)
    }

    /// Renders any diagnostic the way ``YAMLError`` prints: `file:line:column: message`, then (when
    /// `sourceLine` is given) the line and a caret under `mark.column`; `file: message` without a mark.
    public static func render(message: String, fileName: String, mark: YAMLMark?, sourceLine: String?) -> String {
        guard let mark else { return "\(fileName): \(message)" }
        var text = "\(fileName):\(mark.line):\(mark.column): \(message)"
        guard var sourceLine else { return text }
        var column = mark.column
        let scalars = Array(sourceLine.unicodeScalars)
        if scalars.count > maxShownLineLength {
            // Show a window of a very long line around the column, marked with ellipses.
            let start = max(0, min(column - 1 - maxShownLineLength / 2, scalars.count - maxShownLineLength))
            let end = min(scalars.count, start + maxShownLineLength)
            var window = String.UnicodeScalarView(scalars[start..<end])
            if start > 0 {
                window.insert("…", at: window.startIndex)
                column += 1
            }
            if end < scalars.count { window.append("…") }
            sourceLine = String(window)
            column -= start
        }
        var caret = ""
        var remaining = column - 1
        for scalar in sourceLine.unicodeScalars where remaining > 0 {
            caret.append(scalar == "\t" ? "\t" : " ")
            remaining -= 1
        }
        if remaining > 0 { caret += String(repeating: " ", count: remaining) }
        text += "\n\(sourceLine)\n\(caret)^"
        return text
    }

    /// Source lines longer than this many characters are shown as a window around the column.
    public static let maxShownLineLength = 160

    /// `text` in double quotes, with quotes, backslashes and control characters escaped and long text
    /// shortened, for quoting found values in messages.
    public static func quote(_ text: String, limit: Int = 60) -> String {
        var out = "\""
        var count = 0
        for scalar in text.unicodeScalars {
            if count == limit {
                out += "…"
                break
            }
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    out += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
            count += 1
        }
        return out + "\""
    }
}

extension ErrorCode where Domain == YAMLError {
    /// The text is not well-formed YAML (libyaml's scanner or parser refused it).
    public static var syntax: Self { Self(rawValue: "syntax") }
    /// A mapping has the same key twice.
    public static var duplicateKey: Self { Self(rawValue: "duplicate_key") }
    /// The document is larger than ``YAMLLimits/maxDocumentBytes``.
    public static var documentTooLarge: Self { Self(rawValue: "document_too_large") }
    /// The tree, aliases expanded, would exceed ``YAMLLimits/maxNodes``.
    public static var tooManyNodes: Self { Self(rawValue: "too_many_nodes") }
    /// Nesting, aliases expanded, would exceed ``YAMLLimits/maxDepth``.
    public static var tooDeep: Self { Self(rawValue: "too_deep") }
    /// The stream holds more than one document.
    public static var multipleDocuments: Self { Self(rawValue: "multiple_documents") }
    /// An alias names an anchor that was not defined before it.
    public static var unknownAnchor: Self { Self(rawValue: "unknown_anchor") }
    /// A tag outside the YAML 1.2 core schema.
    public static var unsupportedTag: Self { Self(rawValue: "unsupported_tag") }
    /// A mapping key that is a sequence or a mapping.
    public static var complexKey: Self { Self(rawValue: "complex_key") }
    /// A value is not acceptable (e.g. a number out of range).
    public static var invalidValue: Self { Self(rawValue: "invalid_value") }
}
