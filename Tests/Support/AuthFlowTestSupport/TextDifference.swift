/// How two texts compared by a snapshot or golden-file test differ, for the failure message.
public enum TextDifference {
    /// The first differing line of `expected` and `actual`, with the two lines before it, each text's line count,
    /// and which one ended first; `nil` when the texts are equal.
    ///
    /// - Parameters:
    ///   - expected: the stored text (a snapshot, a block of a README).
    ///   - actual: the output under test.
    ///   - expectedName: what the expected text is called in the message ("snapshot", "expected text").
    public static func first(expected: String, actual: String, expectedName: String = "expected text") -> String? {
        guard expected != actual else { return nil }
        let old = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let new = actual.split(separator: "\n", omittingEmptySubsequences: false)
        var index = 0
        while index < min(old.count, new.count), old[index] == new[index] { index += 1 }
        var lines = ["first difference at line \(index + 1):"]
        for context in max(0, index - 2)..<index { lines.append("   \(old[context])") }
        lines.append(index < old.count ? " - \(old[index])" : " - (end of \(expectedName))")
        lines.append(index < new.count ? " + \(new[index])" : " + (end of output)")
        lines.append("(\(expectedName) \(old.count) lines, output \(new.count) lines)")
        return lines.joined(separator: "\n")
    }
}
