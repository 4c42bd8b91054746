// The `authflow` command-line tool: a dispatcher over one type per command.
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
let rest = Array(arguments.dropFirst())
let status: Int32
switch arguments.first {
case "check": status = await CheckCommand.run(rest)
case "matrix": status = await MatrixCommand.run(rest)
case "token": status = await TokenCommand.run(rest)
case "apple": status = AppleCommand.run(rest)
case "sandbox": status = await SandboxCommand.run(rest)
case "serve": status = await ServeCommand.run(rest)
case "demo": status = await DemoCommand.run(rest)
case "-h", "--help", "help": status = CommandIO.usage(CommandIO.overview, code: 0)
default:
    status = CommandIO.usage(
        CommandIO.overview, code: 2, problem: arguments.first.map { "unknown command '\($0)'" })
}
exit(status)
