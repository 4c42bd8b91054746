// The `authflow` command-line tool: a dispatcher over one type per command (see `Command`).
import Foundation

/// The commands by name; `token` and `apple` take their verb (`verify`, `client-secret`) as first argument.
let commands: [String: any Command.Type] = [
    "check": CheckCommand.self, "matrix": MatrixCommand.self, "token": TokenCommand.self,
    "apple": AppleCommand.self, "sandbox": SandboxCommand.self, "serve": ServeCommand.self,
    "demo": DemoCommand.self, "users": UsersCommand.self, "sessions": SessionsCommand.self,
    "tokens": TokensCommand.self,
]

let arguments = Array(CommandLine.arguments.dropFirst())
let status: ExitCode
if let name = arguments.first, let command = commands[name] {
    status = await command.main(Array(arguments.dropFirst()))
} else if arguments.first == "--version" || arguments.first == "version" {
    CommandIO.out("authflow \(Version.current)")
    status = .success
} else if arguments.first == "help", arguments.count == 2, let command = commands[arguments[1]] {
    // `authflow help serve` is `authflow serve --help`: that command's usage only.
    CommandIO.out(command.usage)
    status = .success
} else if arguments.first == "help", arguments.count > 1 {
    let error = ValidationError(
        "help", expected: "one command, one of \(commands.keys.sorted().joined(separator: ", "))",
        found: arguments.count > 2
            ? "\(arguments.count - 1) arguments" : "the unknown command \(ValidationError.quoted(arguments[1]))")
    CommandIO.err("authflow: \(error)\n\n\(CommandIO.overview)")
    status = .usage
} else if let first = arguments.first, ["-h", "--help", "help"].contains(first) {
    CommandIO.out(CommandIO.overview)
    status = .success
} else {
    let error = ValidationError(
        "command", expected: "one of \(commands.keys.sorted().joined(separator: ", "))",
        found: arguments.first.map { "the unknown command \(ValidationError.quoted($0))" } ?? "none")
    CommandIO.err("authflow: \(error)\n\n\(CommandIO.overview)")
    status = .usage
}
exit(status.rawValue)
