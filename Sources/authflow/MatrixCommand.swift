import AuthFlow
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
enum MatrixCommand {
    static let usageText = """
        usage: authflow matrix [--config FILE] [--format text|markdown|json|html]

          --config FILE     the configuration (default: providers.yaml)
          --format FORMAT   text (default; an aligned table), markdown, json (the documented contract)
                            or html (a standalone page)

        Prints, per provider: protocol, identity source, client authentication, callback method, round
        trips per sign-in and the four capabilities (support and state), then what to change in the YAML
        to harden the sign-in. Secrets need not be set: an unset ${VAR} or a missing file in a credential
        key is not an error here. Any other problem is reported as by `authflow check` (exit 1).
        """

    static func run(_ arguments: [String]) async -> Int32 {
        let options: CommandIO.Options
        do throws(CommandIO.UsageProblem) {
            options = try CommandIO.parse(arguments, known: ["config", "format"])
        } catch {
            return CommandIO.usage(usageText, code: CommandIO.usageError, problem: "matrix: \(error.message)")
        }
        if options.help { return CommandIO.usage(usageText, code: CommandIO.success) }
        if let extra = options.positional.first {
            return CommandIO.usage(
                usageText, code: CommandIO.usageError, problem: "matrix: unexpected argument '\(extra)'")
        }
        let path = options.last("config") ?? "providers.yaml"
        guard !path.isEmpty else {
            return CommandIO.usage(usageText, code: CommandIO.usageError, problem: "matrix: --config needs a FILE")
        }
        let formatName = options.last("format") ?? MatrixFormat.text.rawValue
        guard let format = MatrixFormat(rawValue: formatName) else {
            let known = MatrixFormat.allCases.map(\.rawValue).joined(separator: ", ")
            return CommandIO.usage(
                usageText, code: CommandIO.usageError,
                problem: "matrix: unknown format '\(formatName)' (expected one of \(known))")
        }
        do throws(ConfigurationError) {
            let loader = ConfigurationLoader(environment: ProcessInfo.processInfo.environment, mode: .sandbox)
            let configuration = try loader.load(path: path)
            let providers = try await ConfigurationResolution.resolve(configuration, credentials: .keys)
            let matrix = CapabilityMatrix(
                providers: providers, source: path, storesTokens: configuration.server != nil)
            FileHandle.standardOutput.write(Data(matrix.render(format: format).utf8))
            return CommandIO.success
        } catch {
            return CheckCommand.report(error, path: path)
        }
    }
}
