import AuthFlow

extension CapabilityMatrix {
    /// The cells of the text and Markdown tables: short values, explained by the legend.
    static let tableHeadings =
        ["Provider", "Protocol", "Identity", "Client auth", "Callback", "Round trips"]
        + Capability.allCases.map(MatrixVocabulary.capabilityHeading) + ["Native apps"]

    static func tableCells(_ row: MatrixRow) -> [String] {
        let name = row.name == row.type ? row.name : "\(row.name) (\(row.type))"
        return [
            name, MatrixVocabulary.protocolLabel(row.signInProtocol), row.identitySource.rawValue,
            row.clientAuthLabel, row.callbackLabel, String(row.roundTrips),
        ] + row.capabilities.map(\.label) + [row.nativeLabel]
    }

    /// An aligned table for terminals, then the advisories and a legend.
    func renderText() -> String {
        var lines: [String] = [MatrixVocabulary.title + (source.map { ": \($0)" } ?? ""), ""]
        let headings = Self.tableHeadings.map { $0.uppercased() }
        let body = rows.map(Self.tableCells)
        var widths = headings.map(\.count)
        for cells in body {
            for (index, cell) in cells.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        func line(_ cells: [String]) -> String {
            var text = ""
            for (index, cell) in cells.enumerated() {
                text += cell
                if index + 1 < cells.count { text += String(repeating: " ", count: widths[index] - cell.count + 2) }
            }
            return text
        }
        lines.append(line(headings))
        if body.isEmpty { lines.append("(no providers configured)") }
        lines += body.map(line)

        let ruled = rows.filter { !$0.organizationRules.isEmpty }
        if !ruled.isEmpty {
            lines.append("")
            lines.append("Organisation rules (a sign-in outside them is refused):")
            for row in ruled {
                let rules = row.organizationRules.map { "\($0.key) \($0.values.joined(separator: ", "))" }
                lines.append("  - \(row.name): " + rules.joined(separator: "; "))
            }
        }
        let hardening = advisories.filter { $0.severity == .hardening }
        let notes = advisories.filter { $0.severity == .note }
        lines.append("")
        lines.append("Hardening advice:" + (hardening.isEmpty ? " \(MatrixVocabulary.noAdvisories)" : ""))
        lines += hardening.map { "  - \($0.text)" }
        if !notes.isEmpty {
            lines.append("")
            lines.append("Notes:")
            lines += notes.map { "  - \($0.text)" }
        }
        lines.append("")
        lines.append("Legend:")
        let legend = MatrixVocabulary.legend(for: rows)
        let termWidth = legend.map(\.0.count).max() ?? 0
        for (term, meaning) in legend {
            lines.append("  " + term + String(repeating: " ", count: termWidth - term.count + 2) + meaning)
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
