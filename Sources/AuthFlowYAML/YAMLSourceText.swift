/// A source text that can hand out single lines for diagnostics.
public struct YAMLSourceText: Sendable {
    /// The whole text.
    public let text: String

    /// Wraps `text`.
    public init(_ text: String) {
        self.text = text
    }

    /// The 1-based line `number` without its line break, or `nil` when the text has no such line.
    public func line(_ number: Int) -> String? {
        guard number >= 1 else { return nil }
        var current = 1
        var start = text.utf8.startIndex
        var index = start
        let end = text.utf8.endIndex
        while index < end {
            if text.utf8[index] == UInt8(ascii: "\n") {
                if current == number { return Self.trimmed(text.utf8[start..<index]) }
                current += 1
                start = text.utf8.index(after: index)
            }
            index = text.utf8.index(after: index)
        }
        guard current == number else { return nil }
        return Self.trimmed(text.utf8[start..<end])
    }

    private static func trimmed(_ bytes: Substring.UTF8View) -> String {
        var slice = bytes
        if let last = slice.last, last == UInt8(ascii: "\r") { slice = slice.dropLast() }
        return String(Substring(slice))
    }
}
