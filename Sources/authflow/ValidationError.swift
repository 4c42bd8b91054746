/// A command line that cannot run: what was expected, what was found, and where (an option, an argument).
///
/// Every command reports it the same way, `authflow <command>: <where>: expected <expected>, found <found>`
/// then the command's usage on standard error, and exits with ``ExitCode/usage``.
struct ValidationError: Error, Sendable, CustomStringConvertible {
    /// Where on the command line: an option (`--ttl`), `TOKEN`, `command` or `arguments`.
    let location: String
    /// What would have been accepted.
    let expected: String
    /// What was there instead (never a secret's value).
    let found: String

    init(_ location: String, expected: String, found: String) {
        self.location = location
        self.expected = expected
        self.found = found
    }

    var description: String { "\(location): expected \(expected), found \(found)" }

    /// `'text'`, for quoting what the user typed or a store holds, escaped (``TerminalText/escaped(_:)``).
    static func quoted(_ text: String) -> String { "'\(TerminalText.escaped(text))'" }
}
