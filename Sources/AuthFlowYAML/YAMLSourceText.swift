/// A source text that can hand out single lines for diagnostics.
///
/// Line starts are indexed once, so fetching a line costs only that line, however many are fetched.
package struct YAMLSourceText: Sendable {
    /// The whole text.
    package let text: String
    private let lineStarts: [String.Index]

    /// Wraps `text`, indexing where its lines start.
    package init(_ text: String) {
        self.text = text
        var starts = [text.utf8.startIndex]
        var index = text.utf8.startIndex
        while index < text.utf8.endIndex {
            let next = text.utf8.index(after: index)
            if text.utf8[index] == UInt8(ascii: "\n") { starts.append(next) }
            index = next
        }
        lineStarts = starts
    }

    /// The 1-based line `number` without its line break, or `nil` when the text has no such line.
    package func line(_ number: Int) -> String? {
        guard number >= 1, number <= lineStarts.count else { return nil }
        let start = lineStarts[number - 1]
        var end = number < lineStarts.count ? text.utf8.index(before: lineStarts[number]) : text.utf8.endIndex
        if end > start, text.utf8[text.utf8.index(before: end)] == UInt8(ascii: "\r") {
            end = text.utf8.index(before: end)
        }
        return String(Substring(text.utf8[start..<end]))
    }
}
