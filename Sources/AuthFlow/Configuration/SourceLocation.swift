/// Where something was written in a configuration file, with the line itself for diagnostics.
///
/// A line holding a credential (`secret:`, `client_secret:`, …) is kept with its value redacted, so
/// rendering a location never prints a secret.
public struct SourceLocation: Sendable, Hashable, CustomStringConvertible {
    /// The file name as given to the loader.
    package let fileName: String
    /// The 1-based line.
    package let line: Int
    /// The 1-based column, in characters.
    package let column: Int
    /// The source line (credential values redacted), when known.
    package let sourceLine: String?

    /// Creates a location (the loader does this; a test building `ProviderSettings` may too).
    public init(fileName: String, line: Int, column: Int, sourceLine: String?) {
        self.fileName = fileName
        self.line = line
        self.column = column
        self.sourceLine = sourceLine
    }

    /// `file:line:column`.
    public var description: String { "\(fileName):\(line):\(column)" }
}
