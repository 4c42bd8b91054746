import AuthFlow

extension CapabilityMatrix {
    /// A GitHub-flavoured Markdown table, the advisories as lists, and the legend.
    func renderMarkdown() -> String {
        var lines: [String] = []
        lines.append("**\(MatrixVocabulary.title)**" + (source.map { ": " + Self.markdownCode($0) } ?? ""))
        lines.append("")
        lines.append("| " + Self.tableHeadings.joined(separator: " | ") + " |")
        lines.append(
            "|" + Self.tableHeadings.indices.map { $0 == 5 ? " --: |" : " --- |" }.joined())
        for row in rows {
            var cells = Self.tableCells(row).map(Self.markdownEscaped)
            if row.signInProtocol != .webAuthn { cells[3] = "`\(row.clientAuthentication.rawValue)`" }
            lines.append("| " + cells.joined(separator: " | ") + " |")
        }
        if rows.isEmpty { lines.append("| (no providers configured) |" + String(repeating: " |", count: 9)) }

        let hardening = advisories.filter { $0.severity == .hardening }
        let notes = advisories.filter { $0.severity == .note }
        lines.append("")
        lines.append("**Hardening advice**" + (hardening.isEmpty ? ": \(MatrixVocabulary.noAdvisories)" : ""))
        if !hardening.isEmpty {
            lines.append("")
            lines += hardening.map(Self.markdownItem)
        }
        if !notes.isEmpty {
            lines.append("")
            lines.append("**Notes**")
            lines.append("")
            lines += notes.map(Self.markdownItem)
        }
        lines.append("")
        let legend = MatrixVocabulary.legend(for: rows).map { "*\(Self.markdownEscaped($0.0))*: \($0.1)" }
        lines.append("<sub>" + legend.joined(separator: " · ") + "</sub>")
        return lines.joined(separator: "\n") + "\n"
    }

    static func markdownItem(_ advisory: Advisory) -> String {
        let change = advisory.change.map { fragment -> String in
            switch fragment {
            case .text(let text): markdownEscaped(text)
            case .yaml(let yaml): "`\(yaml)`"
            }
        }
        return "- **\(markdownEscaped(advisory.provider))**: \(markdownEscaped(advisory.finding)); \(change.joined())"
    }

    /// `text` as a code span, or escaped text when it holds a backtick (which would end the span).
    static func markdownCode(_ text: String) -> String {
        text.contains("`") ? markdownEscaped(text) : "`\(text)`"
    }

    /// `text` with the characters Markdown would read as markup (`\ ` * | < > [ ]`, and `_` at word edges) escaped.
    static func markdownEscaped(_ text: String) -> String {
        var output = ""
        let characters = Array(text)
        for (index, character) in characters.enumerated() {
            switch character {
            case "\\", "`", "*", "|", "<", ">", "[", "]":
                output += "\\" + String(character)
            case "_":
                let before = index > 0 ? characters[index - 1] : " "
                let after = index + 1 < characters.count ? characters[index + 1] : " "
                let inWord = (before.isLetter || before.isNumber) && (after.isLetter || after.isNumber)
                output += inWord ? "_" : "\\_"
            default:
                output.append(character)
            }
        }
        return output
    }
}
