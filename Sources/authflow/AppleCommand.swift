import AuthFlowJOSE
import Foundation

/// `authflow apple client-secret`: mints the ES256 client secret Sign in with Apple requires.
enum AppleCommand {
    static let defaultTTL: Int64 = 3600

    static let usageText = """
        usage: authflow apple client-secret --team-id T --key-id K --client-id C --key-file F [--ttl SECONDS]

          --team-id T       your Apple Developer team id (the 'iss')
          --key-id K        the key id of the .p8 key (the header 'kid')
          --client-id C     the Services ID or bundle id (the 'sub')
          --key-file F      the AuthKey_K.p8 file (PKCS#8 EC P-256 private key)
          --ttl SECONDS     lifetime, 1 to \(AppleClientSecret.maximumLifetime) (default \(defaultTTL))

        Prints the client secret (a JWT) on stdout. The private key is never printed.
        """

    static func run(_ arguments: [String]) -> Int32 {
        guard arguments.first == "client-secret" else {
            if arguments.first == "--help" || arguments.first == "-h" { return CommandIO.usage(usageText, code: 0) }
            return CommandIO.usage(
                usageText, code: CommandIO.usageError,
                problem: arguments.first.map { "unknown apple command '\($0)'" } ?? "missing apple command")
        }
        do throws(CommandIO.UsageProblem) {
            let options = try CommandIO.parse(
                Array(arguments.dropFirst()), known: ["team-id", "key-id", "client-id", "key-file", "ttl"])
            if options.help { return CommandIO.usage(usageText, code: 0) }
            return try clientSecret(options)
        } catch {
            return CommandIO.usage(usageText, code: CommandIO.usageError, problem: error.message)
        }
    }

    static func clientSecret(_ options: CommandIO.Options) throws(CommandIO.UsageProblem) -> Int32 {
        guard options.positional.isEmpty else { throw .init(message: "unexpected argument '\(options.positional[0])'") }
        var values: [String: String] = [:]
        for name in ["team-id", "key-id", "client-id", "key-file"] {
            guard let value = options.last(name), !value.isEmpty else { throw .init(message: "missing --\(name)") }
            values[name] = value
        }
        var ttl = defaultTTL
        if let text = options.last("ttl") {
            guard let value = Int64(text), value >= 1 else {
                throw .init(message: "--ttl needs a whole number of seconds ≥ 1")
            }
            guard value <= AppleClientSecret.maximumLifetime else {
                throw .init(
                    message: "--ttl \(value) exceeds Apple's maximum of \(AppleClientSecret.maximumLifetime) seconds")
            }
            ttl = value
        }
        let pem = String(decoding: try CommandIO.readFile(values["key-file"] ?? "", what: "key"), as: UTF8.self)
        do throws(JOSEError) {
            let key = try JWK(pkcs8PEM: pem, keyID: values["key-id"])
            let secret = try AppleClientSecret.make(
                teamID: values["team-id"] ?? "", keyID: values["key-id"] ?? "",
                clientID: values["client-id"] ?? "", privateKey: key, issuedAt: Date(), lifetime: ttl)
            CommandIO.out(secret)
            return CommandIO.success
        } catch {
            CommandIO.err("authflow: cannot make the client secret: \(error)")
            return CommandIO.invalid
        }
    }
}
