import AuthFlowHTTP
import AuthFlowJOSE
import Foundation

/// `authflow token verify`: verifies a JWT against a JWK Set (file or URL) and prints its claims.
struct TokenCommand: Command {
    static let name = "token verify"
    static let defaultLeeway = 60.0

    static let usage = """
        usage: authflow token verify --jwks FILE|URL [--issuer I]... [--audience A]... [--nonce N]
                                     [--alg ALG]... [--leeway SECONDS] TOKEN

          --jwks FILE|URL   a JWK Set (or a single JWK) as JSON, from a file or an https:// URL
                            (http:// only on loopback hosts)
          --issuer I        accepted 'iss' (repeatable); unchecked when absent
          --audience A      accepted 'aud' (repeatable); unchecked when absent
          --nonce N         required 'nonce'
          --alg ALG         allowed algorithm (repeatable or comma-separated);
                            default: RS256 RS384 RS512 PS256 PS384 PS512 ES256 ES384 ES512 EdDSA
          --leeway SECONDS  clock-skew allowance for exp/nbf/iat (default 60)
          TOKEN             the compact JWT, or '-' to read it from standard input

        Prints the verified claims as JSON on stdout (exit 0), or the reason on stderr (exit 1).
        """

    var jwks: String
    var issuers: Set<String>
    var audiences: Set<String>
    var nonce: String?
    /// `--alg` values as given (each may be comma-separated), checked by ``validate()``.
    var algorithmNames: [String]
    /// `--leeway` as given, checked by ``validate()``.
    var leewayText: String?
    /// The token, or `-` for standard input.
    var token: String

    static func parse(_ arguments: [String]) throws(ValidationError) -> TokenCommand? {
        if arguments.first == "--help" || arguments.first == "-h" { return nil }
        guard let verb = arguments.first, verb == "verify" else {
            throw ValidationError(
                "command", expected: "'authflow token verify'",
                found: arguments.first.map { "the unknown token command \(ValidationError.quoted($0))" } ?? "none")
        }
        let parsed = try CommandIO.parse(
            Array(arguments.dropFirst()), options: ["jwks", "issuer", "audience", "nonce", "alg", "leeway"])
        if parsed.help { return nil }
        guard let jwks = parsed.last("jwks") else {
            throw ValidationError("--jwks", expected: "a FILE or URL (the option is required)", found: "none")
        }
        guard parsed.positional.count == 1, let token = parsed.positional.first else {
            throw ValidationError(
                "TOKEN", expected: "one compact JWT (or '-' for standard input)",
                found: parsed.positional.isEmpty ? "none" : "\(parsed.positional.count) arguments")
        }
        return TokenCommand(
            jwks: jwks, issuers: Set(parsed.all("issuer")), audiences: Set(parsed.all("audience")),
            nonce: parsed.last("nonce"), algorithmNames: parsed.all("alg"), leewayText: parsed.last("leeway"),
            token: token)
    }

    /// Whether `--jwks` names a URL rather than a file.
    var jwksIsURL: Bool {
        let lowercased = jwks.lowercased()
        return lowercased.hasPrefix("https://") || lowercased.hasPrefix("http://")
    }

    func validate() throws(ValidationError) {
        _ = try algorithms()
        _ = try leeway()
        if jwksIsURL {
            guard JWKSLocation.isAllowed(jwks) else {
                // The URL is not repeated: user information in it may hold a password.
                throw ValidationError(
                    "--jwks",
                    expected:
                        "an https:// URL (http:// is allowed only on localhost, 127.0.0.0/8 and [::1]), so the URL "
                        + "must be https://",
                    found: "a plain http:// URL off loopback, or one with user information")
            }
        } else {
            try CommandIO.requireReadable(jwks, option: "jwks", what: "JWKS")
        }
    }

    /// The allowed algorithms: every `--alg` name, or the asymmetric ones.
    func algorithms() throws(ValidationError) -> Set<JWSAlgorithm> {
        var algorithms: Set<JWSAlgorithm> = []
        for name in algorithmNames.flatMap({ $0.split(separator: ",") }) {
            guard let algorithm = JWSAlgorithm(rawValue: String(name)) else {
                throw ValidationError(
                    "--alg", expected: "one of \(JWSAlgorithm.allCases.map(\.rawValue).joined(separator: " "))",
                    found: ValidationError.quoted(String(name)))
            }
            algorithms.insert(algorithm)
        }
        return algorithms.isEmpty ? JWSAlgorithm.asymmetric : algorithms
    }

    /// The clock-skew allowance in seconds.
    func leeway() throws(ValidationError) -> Double {
        guard let leewayText else { return Self.defaultLeeway }
        guard let value = Double(leewayText), value >= 0, value.isFinite else {
            throw ValidationError(
                "--leeway", expected: "a number of seconds ≥ 0", found: ValidationError.quoted(leewayText))
        }
        return value
    }

    func run() async -> ExitCode {
        let compact: String
        if token == "-" {
            let data = FileHandle.standardInput.readDataToEndOfFile()
            compact = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        } else {
            compact = token
        }
        let jwksBytes: [UInt8]
        if jwksIsURL {
            switch await JWKSLocation.fetch(jwks) {
            case .success(let bytes): jwksBytes = bytes
            case .failure(let problem):
                CommandIO.err("authflow: cannot fetch the JWKS: \(problem.message)")
                return .invalid
            }
        } else {
            guard let bytes = CommandIO.readFile(jwks) else {
                CommandIO.err("authflow: cannot read the JWKS file '\(jwks)'")
                return .invalid
            }
            jwksBytes = bytes
        }
        do throws(JOSEError) {
            let keys = try Self.loadKeys(jwksBytes)
            for skipped in keys.skippedKeys { CommandIO.err("authflow: note: skipped a key in the JWKS: \(skipped)") }
            let checks = ClaimChecks(
                issuers: issuers, audiences: audiences, nonce: nonce, leeway: (try? leeway()) ?? Self.defaultLeeway)
            let verifier = JWTVerifier(
                allowedAlgorithms: (try? algorithms()) ?? JWSAlgorithm.asymmetric, checks: checks)
            let claims = try verifier.verify(compact, keys: keys, now: Date())
            CommandIO.out(TerminalText.json(.object(claims.json)))
            return .success
        } catch {
            CommandIO.err("authflow: token invalid: \(error)")
            return .invalid
        }
    }

    /// A JWK Set document, or a single JWK.
    static func loadKeys(_ bytes: [UInt8]) throws(JOSEError) -> JWKSet {
        let json = try JOSEError.parsingJSON { () throws(JSONError) in try JSONValue.parse(bytes) }
        if json["keys"] != nil { return try JWKSet(jsonData: bytes) }
        return JWKSet(keys: [try JWK(json: json)])
    }
}
