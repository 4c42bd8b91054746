package import AuthFlowJSON

/// Why a YAML document could not be parsed, and where.
///
/// Its `description` is what a compiler would print:
/// ```
/// providers.yaml:3:15: expected a boolean, found "maybe"
///   signup: maybe
///           ^
/// ```
package struct YAMLError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable identifier of the kind of failure, for code that switches on it.
    package typealias Code = ErrorCode<YAMLError>

    /// The kind of failure.
    package let code: Code
    /// What was expected and what was found.
    package let message: String
    /// The name of the source the document came from, as given to the parser.
    package let fileName: String
    /// Where the problem is, when known.
    package let mark: YAMLMark?
    /// The source line at ``mark``, when known.
    package let sourceLine: String?

    /// Creates an error.
    package init(code: Code, message: String, fileName: String, mark: YAMLMark?, sourceLine: String?) {
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
    package var description: String {
        Self.render(message: message, fileName: fileName, mark: mark, sourceLine: sourceLine)
    }

    /// Renders any diagnostic the way ``YAMLError`` prints: `file:line:column: message`, then (when
    /// `sourceLine` is given) the line and a caret under `mark.column`; `file: message` without a mark.
    package static func render(message: String, fileName: String, mark: YAMLMark?, sourceLine: String?) -> String {
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
    package static let maxShownLineLength = 160

    /// `text` in double quotes, with quotes, backslashes and control characters escaped and long text
    /// shortened, for quoting found values in messages.
    package static func quote(_ text: String, limit: Int = 60) -> String {
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
    package static var syntax: Self { Self(rawValue: "syntax") }
    /// A mapping has the same key twice.
    package static var duplicateKey: Self { Self(rawValue: "duplicate_key") }
    /// The document is larger than ``YAMLLimits/maxDocumentBytes``.
    package static var documentTooLarge: Self { Self(rawValue: "document_too_large") }
    /// The tree, aliases expanded, would exceed ``YAMLLimits/maxNodes``.
    package static var tooManyNodes: Self { Self(rawValue: "too_many_nodes") }
    /// Nesting, aliases expanded, would exceed ``YAMLLimits/maxDepth``.
    package static var tooDeep: Self { Self(rawValue: "too_deep") }
    /// The stream holds more than one document.
    package static var multipleDocuments: Self { Self(rawValue: "multiple_documents") }
    /// An alias names an anchor that was not defined before it.
    package static var unknownAnchor: Self { Self(rawValue: "unknown_anchor") }
    /// A tag outside the YAML 1.2 core schema.
    package static var unsupportedTag: Self { Self(rawValue: "unsupported_tag") }
    /// A mapping key that is a sequence or a mapping.
    package static var complexKey: Self { Self(rawValue: "complex_key") }
    /// A value is not acceptable (e.g. a number out of range).
    package static var invalidValue: Self { Self(rawValue: "invalid_value") }
}
