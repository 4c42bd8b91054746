import AuthFlowJOSE
import Foundation

/// `authflow apple client-secret`: mints the ES256 client secret Sign in with Apple requires.
struct AppleCommand: Command {
    static let name = "apple client-secret"
    static let defaultTTL: Int64 = 3600

    static let usage = """
        usage: authflow apple client-secret --team-id T --key-id K --client-id C --key-file F [--ttl SECONDS]

          --team-id T       your Apple Developer team id (the 'iss')
          --key-id K        the key id of the .p8 key (the header 'kid')
          --client-id C     the Services ID or bundle id (the 'sub')
          --key-file F      the AuthKey_K.p8 file (PKCS#8 EC P-256 private key)
          --ttl SECONDS     lifetime, 1 to \(AppleClientSecret.maximumLifetime) (default \(defaultTTL))

        Prints the client secret (a JWT) on stdout. The private key is never printed.
        """

    var teamID: String
    var keyID: String
    var clientID: String
    var keyFile: String
    /// `--ttl` as given, checked by ``validate()``.
    var ttlText: String?

    static func parse(_ arguments: [String]) throws(ValidationError) -> AppleCommand? {
        if arguments.first == "--help" || arguments.first == "-h" { return nil }
        guard let verb = arguments.first, verb == "client-secret" else {
            throw ValidationError(
                "command", expected: "'authflow apple client-secret'",
                found: arguments.first.map { "the unknown apple command \(ValidationError.quoted($0))" } ?? "none")
        }
        let parsed = try CommandIO.parse(
            Array(arguments.dropFirst()), options: ["team-id", "key-id", "client-id", "key-file", "ttl"])
        if parsed.help { return nil }
        try parsed.requireNoPositional()
        var values: [String] = []
        for name in ["team-id", "key-id", "client-id", "key-file"] {
            guard let value = parsed.last(name) else {
                throw ValidationError("--\(name)", expected: "a value (the option is required)", found: "none")
            }
            values.append(value)
        }
        return AppleCommand(
            teamID: values[0], keyID: values[1], clientID: values[2], keyFile: values[3], ttlText: parsed.last("ttl"))
    }

    func validate() throws(ValidationError) {
        try CommandIO.requireNonEmpty(teamID, option: "team-id", expected: "the team id")
        try CommandIO.requireNonEmpty(keyID, option: "key-id", expected: "the key id")
        try CommandIO.requireNonEmpty(clientID, option: "client-id", expected: "the client id")
        try CommandIO.requireNonEmpty(keyFile, option: "key-file", expected: "the .p8 key file")
        _ = try ttl()
        try CommandIO.requireReadable(keyFile, option: "key-file", what: "key")
    }

    /// The lifetime in seconds: `--ttl`, 1 to Apple's maximum, or the default.
    func ttl() throws(ValidationError) -> Int64 {
        guard let ttlText else { return Self.defaultTTL }
        let range = "a whole number of seconds from 1 to \(AppleClientSecret.maximumLifetime)"
        guard let value = Int64(ttlText), (1...AppleClientSecret.maximumLifetime).contains(value) else {
            throw ValidationError("--ttl", expected: range, found: ValidationError.quoted(ttlText))
        }
        return value
    }

    func run() async -> ExitCode {
        let lifetime = (try? ttl()) ?? Self.defaultTTL
        guard let bytes = CommandIO.readFile(keyFile) else {
            CommandIO.err("authflow: cannot read the key file '\(keyFile)'")
            return .invalid
        }
        do throws(JOSEError) {
            let key = try JWK(pkcs8PEM: String(decoding: bytes, as: UTF8.self), keyID: keyID)
            let secret = try AppleClientSecret.make(
                teamID: teamID, keyID: keyID, clientID: clientID, privateKey: key, issuedAt: Date(),
                lifetime: lifetime)
            CommandIO.out(secret)
            return .success
        } catch {
            CommandIO.err("authflow: cannot make the client secret: \(error)")
            return .invalid
        }
    }
}
