// The `authflow` command-line tool: a dispatcher over one type per command.
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
let rest = Array(arguments.dropFirst())
switch arguments.first {
case "check": exit(CheckCommand.run(rest))
case "matrix": exit(MatrixCommand.run(rest))
case "token": exit(TokenCommand.run(rest))
case "apple": exit(AppleCommand.run(rest))
case "sandbox": exit(SandboxCommand.run(rest))
case "serve": exit(ServeCommand.run(rest))
case "demo": exit(DemoCommand.run(rest))
case "-h", "--help", "help": exit(CommandIO.usage(CommandIO.overview, code: 0))
default: exit(CommandIO.usage(CommandIO.overview, code: 2, problem: arguments.first.map { "unknown command '\($0)'" }))
}
