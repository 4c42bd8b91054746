import Foundation

/// Shared plumbing of the `authflow` commands: the overview, output streams, option parsing.
enum CommandIO {
    static let overview = """
        usage: authflow <command> [options]

        commands:
          token verify --jwks FILE|URL [--issuer I] [--audience A] [--nonce N] [--alg ALG] [--leeway S] TOKEN
                                  verify a JWT; prints its claims as JSON
          check [--config FILE] [--connect]
                                  validate providers.yaml; print every problem with its position
                                  (--connect: also reach the configured store)
          sandbox [--listen ADDR] run only the sandbox identity provider (offline Apple/Google/Facebook/X)
          matrix [--config FILE] [--format text|markdown|json|html]
                                  what each provider does at sign-in, and how to harden it
          apple client-secret --team-id T --key-id K --client-id C --key-file F [--ttl SECONDS]
                                  print a fresh Sign in with Apple client secret
          serve [--config FILE] [--sandbox]
                                  the sign-in server (routes /auth/...); --sandbox: against the sandbox
          demo [--config FILE]    serve --sandbox on ./providers.yaml, with the demo page at /
          users list [--json] | show USER | delete USER [--config FILE]
                                  the users of the configured store; delete revokes their tokens
          sessions revoke --user USER [--config FILE]
                                  end every session of a user
          tokens refresh PROVIDER:SUBJECT [--config FILE]
                                  redeem an identity's stored refresh token at its provider

          help COMMAND            that command's usage (the same as authflow COMMAND --help)
          --version               the version of this build

        exit codes: 0 success, 1 invalid, 2 usage error
        """

    static func out(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func err(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// Reports a command line that cannot run, in the one style of every command: the problem, a blank line,
    /// the usage, all on standard error.
    static func usageError(_ error: ValidationError, command: String, usage: String) -> ExitCode {
        err("authflow \(command): \(error)\n\n\(usage)")
        return .usage
    }

    /// Options (`--name value`, `--name=value`), flags (`--name`) and positional arguments, as given.
    struct Arguments: Sendable {
        var values: [String: [String]] = [:]
        var flags: Set<String> = []
        var positional: [String] = []
        var help = false

        func last(_ name: String) -> String? { values[name]?.last }
        func all(_ name: String) -> [String] { values[name] ?? [] }

        /// Refuses positional arguments (for commands that take none).
        func requireNoPositional() throws(ValidationError) {
            if let extra = positional.first {
                throw ValidationError("arguments", expected: "options only", found: ValidationError.quoted(extra))
            }
        }
    }

    /// Parses `arguments`: every name in `options` takes a value, every name in `flags` none; `-h`/`--help` ask
    /// for help and `--` ends the options.
    static func parse(_ arguments: [String], options: Set<String>, flags: Set<String> = [])
        throws(ValidationError) -> Arguments
    {
        var parsed = Arguments()
        var index = 0
        var onlyPositional = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositional || !argument.hasPrefix("--") || argument == "-" {
                if argument == "-h" && !onlyPositional {
                    parsed.help = true
                } else {
                    parsed.positional.append(argument)
                }
                continue
            }
            if argument == "--" {
                onlyPositional = true
                continue
            }
            if argument == "--help" {
                parsed.help = true
                continue
            }
            var name = String(argument.dropFirst(2))
            var value: String? = nil
            if let equals = name.firstIndex(of: "=") {
                value = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if flags.contains(name) {
                guard value == nil else {
                    throw ValidationError("--\(name)", expected: "no value", found: "'--\(name)=…'")
                }
                parsed.flags.insert(name)
                continue
            }
            guard options.contains(name) else {
                let known = (options.union(flags)).sorted().map { "--\($0)" }.joined(separator: ", ")
                throw ValidationError(
                    "arguments", expected: "one of the options \(known)",
                    found: "the unknown option \(ValidationError.quoted("--" + name))")
            }
            if value == nil {
                guard index < arguments.count else {
                    throw ValidationError("--\(name)", expected: "a value", found: "the end of the arguments")
                }
                value = arguments[index]
                index += 1
            }
            parsed.values[name, default: []].append(value ?? "")
        }
        return parsed
    }

    /// Refuses an empty `--name` value.
    static func requireNonEmpty(_ value: String, option name: String, expected: String) throws(ValidationError) {
        if value.isEmpty { throw ValidationError("--\(name)", expected: expected, found: "an empty value") }
    }

    /// Refuses a file the command cannot read; the error never includes the file's content.
    static func requireReadable(_ path: String, option name: String, what: String) throws(ValidationError) {
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw ValidationError(
                "--\(name)", expected: "a readable \(what) file", found: "none at \(ValidationError.quoted(path))")
        }
    }

    /// Reads a file the user named (checked readable by `validate`); `nil` when it vanished since.
    static func readFile(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { [UInt8]($0) }
    }
}
