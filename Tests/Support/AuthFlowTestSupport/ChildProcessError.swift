/// Why a child process could not be started, fed or waited for.
///
/// `code` is stable: `executable_not_found`, `pipe_failed`, `spawn_failed`, `stdin_failed`, `timed_out`.
public struct ChildProcessError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The stable identifier of the failure.
    public let code: String
    /// What was expected and what was found.
    public let message: String
    /// The executable the failure concerns (as given by the caller).
    public let executable: String

    /// Creates an error; `message` says what was expected and what was found.
    public init(code: String, message: String, executable: String) {
        self.code = code
        self.message = message
        self.executable = executable
    }

    /// `code: message (executable)`.
    public var description: String { "\(code): \(message) (\(executable))" }
}
