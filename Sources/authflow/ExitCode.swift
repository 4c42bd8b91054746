/// The exit statuses the `authflow` contract promises (docs/configuration.md, "Exit codes"): every command ends
/// with one of these.
enum ExitCode: Int32, Sendable {
    /// Done: the command did what was asked (and printed its result on standard output).
    case success = 0
    /// The input was read but is not valid, or what the command reaches (a file's content, a store, a port,
    /// a key set) refused it; the reason is on standard error.
    case invalid = 1
    /// The command line itself is wrong (a `ValidationError`); the reason and the usage are on standard error.
    case usage = 2
}
