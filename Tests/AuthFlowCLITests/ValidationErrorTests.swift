import Foundation
import Testing

/// Every command refuses a command line it cannot run in one style, before doing anything: exit 2, nothing on
/// standard output, `authflow <command>: <where>: expected <what>, found <what>` then the usage on standard error.
@Suite struct ValidationErrorTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let arguments: [String]
        /// The first line of standard error.
        let problem: String
        /// The start of the usage text that follows it.
        let usage: String

        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let cases: [Case] = [
        Case(
            arguments: ["check", "--verbose"],
            problem: "authflow check: arguments: expected one of the options --config, --connect, "
                + "found the unknown option '--verbose'",
            usage: "usage: authflow check"),
        Case(
            arguments: ["check", "--config"],
            problem: "authflow check: --config: expected a value, found the end of the arguments",
            usage: "usage: authflow check"),
        Case(
            arguments: ["check", "--config="],
            problem: "authflow check: --config: expected a FILE, found an empty value",
            usage: "usage: authflow check"),
        Case(
            arguments: ["check", "--connect=yes"],
            problem: "authflow check: --connect: expected no value, found '--connect=…'", usage: "usage: authflow check"
        ),
        Case(
            arguments: ["matrix", "extra"], problem: "authflow matrix: arguments: expected options only, found 'extra'",
            usage: "usage: authflow matrix"),
        Case(
            arguments: ["token", "verify", "--jwks", "/nonexistent/jwks.json", "a.b.c"],
            problem: "authflow token verify: --jwks: expected a readable JWKS file, found none at "
                + "'/nonexistent/jwks.json'",
            usage: "usage: authflow token verify"),
        Case(
            arguments: ["token", "verify", "--jwks", "/dev/null", "--leeway", "-1", "a.b.c"],
            problem: "authflow token verify: --leeway: expected a number of seconds ≥ 0, found '-1'",
            usage: "usage: authflow token verify"),
        Case(
            arguments: ["token", "verify", "--jwks", "/dev/null", "--alg", "RS256,none", "a.b.c"],
            problem: "authflow token verify: --alg: expected one of ", usage: "usage: authflow token verify"),
        Case(
            arguments: ["token", "verify", "--jwks", "/dev/null", "a.b.c", "d.e.f"],
            problem: "authflow token verify: TOKEN: expected one compact JWT (or '-' for standard input), "
                + "found 2 arguments",
            usage: "usage: authflow token verify"),
        Case(
            arguments: ["token", "sign"],
            problem: "authflow token verify: command: expected 'authflow token verify', "
                + "found the unknown token command 'sign'",
            usage: "usage: authflow token verify"),
        Case(
            arguments: [
                "apple", "client-secret", "--team-id", "T", "--key-id", "K", "--client-id", "C", "--key-file",
                "/dev/null", "--ttl", "15777001",
            ],
            problem: "authflow apple client-secret: --ttl: expected a whole number of seconds from 1 to 15777000, "
                + "found '15777001'",
            usage: "usage: authflow apple client-secret"),
        Case(
            arguments: [
                "apple", "client-secret", "--team-id", "", "--key-id", "K", "--client-id", "C", "--key-file",
                "/dev/null",
            ],
            problem: "authflow apple client-secret: --team-id: expected the team id, found an empty value",
            usage: "usage: authflow apple client-secret"),
        Case(
            arguments: [
                "apple", "client-secret", "--team-id", "T", "--key-id", "K", "--client-id", "C", "--key-file",
                "/nonexistent/AuthKey.p8",
            ],
            problem: "authflow apple client-secret: --key-file: expected a readable key file, found none at "
                + "'/nonexistent/AuthKey.p8'",
            usage: "usage: authflow apple client-secret"),
        Case(
            arguments: ["sandbox", "--listen", "127.0.0.1:70000"],
            problem: "authflow sandbox: --listen: expected HOST:PORT (e.g. 127.0.0.1:0) with a port from 0 to 65535, "
                + "found '127.0.0.1:70000'",
            usage: "usage: authflow sandbox"),
        Case(
            arguments: ["sandbox", "--redirect-uri", "callback"],
            problem: "authflow sandbox: --redirect-uri: expected an absolute URL, found 'callback'",
            usage: "usage: authflow sandbox"),
        Case(
            arguments: ["serve", "--sandbox=yes"],
            problem: "authflow serve: --sandbox: expected no value, found '--sandbox=…'", usage: "usage: authflow serve"
        ),
        Case(
            arguments: ["serve", "--config", ""],
            problem: "authflow serve: --config: expected a FILE, found an empty value",
            usage: "usage: authflow serve"),
        Case(
            arguments: ["demo", "--sandbox"],
            problem: "authflow demo: arguments: expected one of the options --config, found the unknown option "
                + "'--sandbox'",
            usage: "usage: authflow demo"),
        Case(
            arguments: ["users", "show", "a", "b"],
            problem: "authflow users: USER: expected one user id or PROVIDER:SUBJECT, found 2 arguments",
            usage: "usage: authflow users"),
        Case(
            arguments: ["users", "delete", "google:"],
            problem: "authflow users: USER: expected a user id, or PROVIDER:SUBJECT with both parts, found 'google:'",
            usage: "usage: authflow users"),
        Case(
            arguments: ["sessions", "revoke"],
            problem: "authflow sessions: --user: expected a USER (the option is required), found none",
            usage: "usage: authflow sessions"),
        Case(
            arguments: ["frobnicate"],
            problem: "authflow: command: expected one of apple, check, demo, matrix, sandbox, serve, sessions, "
                + "token, tokens, users, found the unknown command 'frobnicate'",
            usage: "usage: authflow <command>"),
    ]

    @Test(arguments: cases)
    func isRefusedWithExitTwoInTheSharedStyle(_ invalid: Case) async throws {
        let output = try await CLIRunner.authflowOffPool(invalid.arguments)
        #expect(output.status == 2, "\(output.stderr)")
        #expect(output.stdout.isEmpty)
        let lines = output.stderr.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first.map { $0.hasPrefix(invalid.problem) } == true, "\(output.stderr)")
        #expect(lines.dropFirst().first == "", "a blank line separates the problem from the usage")
        #expect(lines.dropFirst(2).first.map { $0.hasPrefix(invalid.usage) } == true, "\(output.stderr)")
    }

    @Test(arguments: ["check", "matrix", "sandbox", "serve", "demo", "users", "sessions"])
    func helpPrintsTheUsageOnStandardOutput(_ command: String) async throws {
        for flag in ["--help", "-h"] {
            let output = try await CLIRunner.authflowOffPool([command, flag])
            #expect(output.status == 0)
            #expect(output.stdout.hasPrefix("usage: authflow \(command)"))
            #expect(output.stderr.isEmpty)
        }
    }
}
