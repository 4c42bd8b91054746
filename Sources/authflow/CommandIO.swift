import Foundation

/// Shared plumbing of the `authflow` commands: exit codes, output streams, option parsing.
enum CommandIO {
    /// Exit codes promised by the CLI contract.
    static let success: Int32 = 0
    static let invalid: Int32 = 1
    static let usageError: Int32 = 2

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

        exit codes: 0 success, 1 invalid, 2 usage error
        """

    static func out(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func err(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// Prints usage (to stdout when asked for, to stderr with a problem) and returns `code`.
    static func usage(_ text: String, code: Int32, problem: String? = nil) -> Int32 {
        if let problem {
            err("authflow: \(problem)")
            err(text)
        } else if code == 0 {
            out(text)
        } else {
            err(text)
        }
        return code
    }

    /// Parsed `--name value` / `--name=value` options and positional arguments.
    struct Options {
        var values: [String: [String]] = [:]
        var positional: [String] = []
        var help = false

        func last(_ name: String) -> String? { values[name]?.last }
        func all(_ name: String) -> [String] { values[name] ?? [] }
    }

    struct UsageProblem: Error {
        let message: String
    }

    /// Parses options; every option takes a value. `--` ends options.
    static func parse(_ arguments: [String], known: Set<String>) throws(UsageProblem) -> Options {
        var options = Options()
        var index = 0
        var onlyPositional = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositional || !argument.hasPrefix("--") || argument == "-" {
                if argument == "-h" && !onlyPositional {
                    options.help = true
                    continue
                }
                options.positional.append(argument)
                continue
            }
            if argument == "--" {
                onlyPositional = true
                continue
            }
            if argument == "--help" {
                options.help = true
                continue
            }
            var name = String(argument.dropFirst(2))
            var value: String? = nil
            if let equals = name.firstIndex(of: "=") {
                value = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            guard known.contains(name) else { throw UsageProblem(message: "unknown option '--\(name)'") }
            if value == nil {
                guard index < arguments.count else { throw UsageProblem(message: "option '--\(name)' needs a value") }
                value = arguments[index]
                index += 1
            }
            options.values[name, default: []].append(value ?? "")
        }
        return options
    }

    /// Reads a file the user named; the error never includes the file's content.
    static func readFile(_ path: String, what: String) throws(UsageProblem) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw UsageProblem(message: "cannot read the \(what) file '\(path)'")
        }
        return [UInt8](data)
    }
}
