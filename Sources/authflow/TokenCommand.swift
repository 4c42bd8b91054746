import AuthFlowHTTP
import AuthFlowJOSE
import Foundation

/// `authflow token verify`: verifies a JWT against a JWK Set (file or URL) and prints its claims.
enum TokenCommand {
    static let usageText = """
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

    static func run(_ arguments: [String]) async -> Int32 {
        guard arguments.first == "verify" else {
            if arguments.first == "--help" || arguments.first == "-h" { return CommandIO.usage(usageText, code: 0) }
            return CommandIO.usage(
                usageText, code: CommandIO.usageError,
                problem: arguments.first.map { "unknown token command '\($0)'" } ?? "missing token command")
        }
        do throws(CommandIO.UsageProblem) {
            let options = try CommandIO.parse(
                Array(arguments.dropFirst()), known: ["jwks", "issuer", "audience", "nonce", "alg", "leeway"])
            if options.help { return CommandIO.usage(usageText, code: 0) }
            return try await verify(options)
        } catch {
            return CommandIO.usage(usageText, code: CommandIO.usageError, problem: error.message)
        }
    }

    static func verify(_ options: CommandIO.Options) async throws(CommandIO.UsageProblem) -> Int32 {
        guard let jwksSource = options.last("jwks") else { throw .init(message: "missing --jwks FILE|URL") }
        let isURL = jwksSource.lowercased().hasPrefix("https://") || jwksSource.lowercased().hasPrefix("http://")
        if isURL, !JWKSLocation.isAllowed(jwksSource) {
            throw .init(
                message: "--jwks URL must be https:// (http:// is allowed only on localhost, 127.0.0.0/8 and [::1])")
        }
        guard options.positional.count == 1, let tokenArgument = options.positional.first else {
            throw .init(
                message: options.positional.isEmpty
                    ? "missing TOKEN" : "expected one TOKEN, found \(options.positional.count)")
        }
        var algorithms: Set<JWSAlgorithm> = []
        for value in options.all("alg") {
            for name in value.split(separator: ",") {
                guard let algorithm = JWSAlgorithm(rawValue: String(name)) else {
                    throw .init(
                        message:
                            "unknown algorithm '\(name)' (expected one of \(JWSAlgorithm.allCases.map(\.rawValue).joined(separator: " ")))"
                    )
                }
                algorithms.insert(algorithm)
            }
        }
        if algorithms.isEmpty { algorithms = JWSAlgorithm.asymmetric }
        var leeway = 60.0
        if let text = options.last("leeway") {
            guard let value = Double(text), value >= 0, value.isFinite else {
                throw .init(message: "--leeway needs a number of seconds ≥ 0")
            }
            leeway = value
        }
        let token: String
        if tokenArgument == "-" {
            let data = FileHandle.standardInput.readDataToEndOfFile()
            token = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        } else {
            token = tokenArgument
        }
        let jwksBytes: [UInt8]
        if isURL {
            switch await JWKSLocation.fetch(jwksSource) {
            case .success(let bytes): jwksBytes = bytes
            case .failure(let problem):
                CommandIO.err("authflow: cannot fetch the JWKS: \(problem.message)")
                return CommandIO.invalid
            }
        } else {
            jwksBytes = try CommandIO.readFile(jwksSource, what: "JWKS")
        }

        do throws(JOSEError) {
            let keys = try loadKeys(jwksBytes)
            for skipped in keys.skippedKeys { CommandIO.err("authflow: note: skipped a key in the JWKS: \(skipped)") }
            let checks = ClaimChecks(
                issuers: Set(options.all("issuer")), audiences: Set(options.all("audience")),
                nonce: options.last("nonce"), leeway: leeway)
            let verifier = JWTVerifier(allowedAlgorithms: algorithms, checks: checks)
            let claims = try verifier.verify(token, keys: keys, now: Date())
            CommandIO.out(JSONValue.object(claims.json).serialized())
            return CommandIO.success
        } catch {
            CommandIO.err("authflow: token invalid: \(error)")
            return CommandIO.invalid
        }
    }

    /// A JWK Set document, or a single JWK.
    static func loadKeys(_ bytes: [UInt8]) throws(JOSEError) -> JWKSet {
        let json = try JSONValue.parse(bytes)
        if json["keys"] != nil { return try JWKSet(jsonData: bytes) }
        return JWKSet(keys: [try JWK(json: json)])
    }
}
