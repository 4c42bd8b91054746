import Foundation
import Testing

/// `authflow --version`, `authflow --help`, `authflow help COMMAND` and `authflow COMMAND --help`.
@Suite struct HelpAndVersionTests {
    static let commands = ["check", "matrix", "sandbox", "serve", "demo", "token", "apple"]

    @Test func versionPrintsTheOneVersionAndExitsZero() throws {
        let output = try CLIRunner.authflow(["--version"])
        #expect(output.status == 0)
        #expect(output.stderr.isEmpty)
        let line = output.stdout.trimmingCharacters(in: .newlines)
        #expect(line.hasPrefix("authflow "))
        // A semantic version, the one CHANGELOG.md names.
        let version = String(line.dropFirst("authflow ".count))
        let parts = version.split(separator: ".")
        #expect(parts.count == 3 && parts.allSatisfy { Int($0) != nil }, "\(version)")
        let changelog = try String(
            contentsOf: CLIRunner.packageRoot.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        #expect(changelog.contains("[\(version)]"), "CHANGELOG.md has a section for \(version)")
    }

    @Test(arguments: commands)
    func helpCommandPrintsThatCommandsUsageOnce(command: String) throws {
        let viaHelp = try CLIRunner.authflow(["help", command])
        #expect(viaHelp.status == 0)
        #expect(viaHelp.stderr.isEmpty)
        let name = command == "token" ? "token verify" : command == "apple" ? "apple client-secret" : command
        #expect(viaHelp.stdout.hasPrefix("usage: authflow \(name)"), "\(viaHelp.stdout.prefix(80))")
        #expect(viaHelp.stdout.components(separatedBy: "usage: ").count == 2, "printed once")
        #expect(!viaHelp.stdout.contains("commands:"), "not the overview")
        let viaFlag = try CLIRunner.authflow([command, "--help"])
        #expect(viaFlag.status == 0)
        #expect(viaFlag.stdout == viaHelp.stdout)
    }

    @Test func helpAloneAndDashDashHelpPrintTheOverview() throws {
        for arguments in [["help"], ["--help"], ["-h"]] {
            let output = try CLIRunner.authflow(arguments)
            #expect(output.status == 0)
            #expect(output.stdout.contains("commands:"))
            #expect(output.stdout.contains("--version"))
            #expect(output.stdout.contains("help COMMAND"))
        }
    }

    @Test func helpForAnUnknownCommandIsAUsageError() throws {
        let output = try CLIRunner.authflow(["help", "sevre"])
        #expect(output.status == 2)
        #expect(output.stdout.isEmpty)
        #expect(output.stderr.hasPrefix("authflow: help: expected one command"))
        #expect(output.stderr.contains("found the unknown command 'sevre'"))
    }
}
