extension ChildProcess {
    /// What a long-running child reads on its standard input.
    public enum Input: Sendable, Hashable {
        /// `/dev/null`: the child reads end of file at once.
        case null
        /// A pipe the test writes with `RunningChild.write(_:)` and closes with `closeStdin()`.
        case pipe
    }

    /// Where a long-running child's standard error goes.
    public enum ErrorOutput: Sendable, Hashable {
        /// Captured in memory (`RunningChild.stderr`).
        case capture
        /// Written to this file (created or truncated; a relative path is taken from the parent's directory).
        case file(String)
        /// `/dev/null`.
        case discard
    }
}
