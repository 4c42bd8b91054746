/// A position in a YAML source text.
///
/// Lines and columns are 1-based; columns count characters (Unicode scalars), not bytes.
package struct YAMLMark: Sendable, Hashable, CustomStringConvertible {
    /// The 1-based line number.
    package let line: Int
    /// The 1-based column number, in characters.
    package let column: Int

    /// Creates a mark at `line` and `column` (both 1-based).
    package init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// `line:column`.
    package var description: String { "\(line):\(column)" }
}
