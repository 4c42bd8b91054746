import AuthFlow
import AuthFlowDeployment
import AuthFlowMatrix
import AuthFlowProviders
import Foundation

/// `authflow matrix [--config FILE] [--format text|markdown|json|html]`: the capability matrix of the configured
/// providers, with hardening advice.
///
/// Runs without secrets: the file is loaded in sandbox mode (an unset `${VAR}` or a missing file in a
/// credential key is not an error) and resolved with ``ProviderRegistry/CredentialRequirement/keys``. Every
/// other problem is reported exactly as `authflow check` reports it. Exit codes: 0 printed, 1 invalid
/// configuration, 2 usage error.
struct MatrixCommand: Command {
    static let name = "matrix"

    static let usage = """
        usage: authflow matrix [--config FILE] [--format text|markdown|json|html]

          --config FILE     the configuration (default: providers.yaml)
          --format FORMAT   text (default; an aligned table), markdown, json (the documented contract)
                            or html (a standalone page)

        Prints, per provider: protocol, identity source, client authentication, callback method, round
        trips per sign-in and the four capabilities (support and state), then what to change in the YAML
        to harden the sign-in. Secrets need not be set: an unset ${VAR} or a missing file in a credential
        key is not an error here. Any other problem is reported as by `authflow check` (exit 1).
        """

    var path: String
    /// `--format` as given, checked by ``validate()``.
    var formatName: String

    static func parse(_ arguments: [String]) throws(ValidationError) -> MatrixCommand? {
        let parsed = try CommandIO.parse(arguments, options: ["config", "format"])
        if parsed.help { return nil }
        try parsed.requireNoPositional()
        return MatrixCommand(
            path: parsed.last("config") ?? "providers.yaml",
            formatName: parsed.last("format") ?? MatrixFormat.text.rawValue)
    }

    func validate() throws(ValidationError) {
        try CommandIO.requireNonEmpty(path, option: "config", expected: "a FILE")
        _ = try format()
    }

    /// The output format `--format` names.
    func format() throws(ValidationError) -> MatrixFormat {
        guard let format = MatrixFormat(rawValue: formatName) else {
            let known = MatrixFormat.allCases.map(\.rawValue).joined(separator: ", ")
            throw ValidationError(
                "--format", expected: "one of \(known)",
                found: "the unknown format \(ValidationError.quoted(formatName))")
        }
        return format
    }

    func run() async -> ExitCode {
        do throws(ConfigurationError) {
            let loader = ConfigurationLoader(environment: ProcessInfo.processInfo.environment, mode: .sandbox)
            let configuration = try loader.load(path: path)
            let providers = try await ConfigurationResolution.resolve(configuration, credentials: .keys)
            let matrix = CapabilityMatrix(
                providers: providers, source: path, storesTokens: configuration.server != nil,
                access: configuration.server?.access ?? AccessRules())
            FileHandle.standardOutput.write(Data(matrix.render(format: (try? format()) ?? .text).utf8))
            return .success
        } catch {
            // Exactly what `authflow check` prints for the same file.
            return CheckCommand.report(await CheckCommand.withResolutionIssues(error), path: path)
        }
    }
}
