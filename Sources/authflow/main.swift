// The `authflow` command-line tool: a dispatcher over one type per command.
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
let rest = Array(arguments.dropFirst())
switch arguments.first {
case "check": exit(CheckCommand.run(rest))
default:
    FileHandle.standardError.write(Data("usage: authflow <command> [options]\n  check [--config FILE]\n".utf8))
    exit(2)
}
