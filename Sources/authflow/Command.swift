/// One `authflow` command: its arguments are parsed into a value, the value is validated, then it runs.
///
/// Parsing and validation never touch the network or a store; either failing is a ``ValidationError`` that
/// ``main(_:)`` reports in the one style every command shares and maps to ``ExitCode/usage``.
protocol Command: Sendable {
    /// The command's usage text: on standard output for `--help`, after the problem for a usage error.
    static var usage: String { get }
    /// The command's name in messages (`check`, `token verify`).
    static var name: String { get }
    /// The command the arguments (those after the command's name) ask for; `nil` when they ask for help.
    static func parse(_ arguments: [String]) throws(ValidationError) -> Self?
    /// Checks the parsed values (ranges, formats, readable files) before anything runs.
    func validate() throws(ValidationError)
    /// Runs the validated command.
    func run() async -> ExitCode
}

extension Command {
    /// Parses, validates and runs; the exit code of the whole command.
    static func main(_ arguments: [String]) async -> ExitCode {
        do throws(ValidationError) {
            guard let command = try parse(arguments) else {
                CommandIO.out(usage)
                return .success
            }
            try command.validate()
            return await command.run()
        } catch {
            return CommandIO.usageError(error, command: name, usage: usage)
        }
    }
}
