import AuthFlow
import AuthFlowDeployment
import AuthFlowPostgres
import AuthFlowProviders
import AuthFlowRedis
import Foundation

/// `authflow check [--config FILE] [--connect]`: loads and resolves a configuration, printing every problem;
/// with `--connect` also connects to the configured store.
///
/// Exit codes: 0 valid (one summary line on stdout), 1 invalid or store unreachable (on stderr), 2 usage error.
struct CheckCommand: Command {
    static let name = "check"

    static let usage = """
        usage: authflow check [--config FILE] [--connect]

          --config FILE   the configuration to check (default: providers.yaml)
          --connect       also connect to the stores (store.postgres_url, store.redis_url) and report the
                          database's schema version; nothing is written

        Loads the file (reading ${VAR} from the environment and *_file keys from disk), resolves every
        provider against the built-in plugins, and prints each problem with its file, line and column
        on stderr (exit 1), or a one-line summary on stdout (exit 0), followed by any note a provider's
        plugin gives (e.g. PKCE forced on an issuer that does not advertise it) and any note on
        server.access (a group or role rule that names no provider while several are configured).
        """

    var path: String
    var connect: Bool

    static func parse(_ arguments: [String]) throws(ValidationError) -> CheckCommand? {
        let parsed = try CommandIO.parse(arguments, options: ["config"], flags: ["connect"])
        if parsed.help { return nil }
        try parsed.requireNoPositional()
        return CheckCommand(path: parsed.last("config") ?? "providers.yaml", connect: parsed.flags.contains("connect"))
    }

    func validate() throws(ValidationError) {
        try CommandIO.requireNonEmpty(path, option: "config", expected: "a FILE")
    }

    func run() async -> ExitCode {
        do throws(ConfigurationError) {
            let loader = ConfigurationLoader(environment: ProcessInfo.processInfo.environment)
            let configuration = try loader.load(path: path)
            let providers = try await ConfigurationResolution.resolve(configuration)
            let summary = providers.map { "\($0.name) (\($0.type), \($0.signInProtocol.rawValue))" }
            let count = providers.count == 1 ? "1 provider" : "\(providers.count) providers"
            CommandIO.out("OK: \(path): \(count)" + (summary.isEmpty ? "" : ": " + summary.joined(separator: ", ")))
            // What a plugin notes about a valid configuration (e.g. PKCE forced where it is not advertised).
            for provider in providers {
                for advice in provider.plugin.advice(on: provider) {
                    let change = advice.key.map { "set \($0) \(advice.change)" } ?? advice.change
                    CommandIO.out("note: \(provider.name): \(advice.finding); \(change)")
                }
            }
            // A group or role rule that trusts its name from every configured provider.
            let access = configuration.server?.access ?? AccessRules()
            for advice in access.unqualifiedRuleAdvice(configured: providers.map(\.name)) {
                CommandIO.out("note: \(advice.finding); " + (advice.key.map { "set \($0) " } ?? "") + advice.change)
            }
            return connect ? Self.checkConnection(configuration.store) : .success
        } catch {
            return Self.report(await Self.withResolutionIssues(error), path: path)
        }
    }

    /// The read-stage issues of `error` together with what resolving the providers that could be read
    /// refuses (a capability a plugin does not support, say), so one run shows every problem once: a key
    /// written without a value (an unset `${VAR}`, an unreadable file) was reported by the read stage, so
    /// resolution counts it as present (``ProviderRegistry/CredentialRequirement/keys``), and an absent
    /// `client_id` the read stage reported is not reported again.
    static func withResolutionIssues(_ readError: ConfigurationError) async -> ConfigurationError {
        guard let readable = readError.readable, !readable.providers.isEmpty else { return readError }
        do throws(ConfigurationError) {
            _ = try await ConfigurationResolution.resolve(readable, credentials: .keys)
            return readError
        } catch {
            var issues = readError.issues
            let missingClientIDs = Set(
                readError.issues.filter { $0.code == .missingKey && $0.message.contains("\"client_id\"") }
                    .compactMap { $0.location?.description })
            for issue in error.issues where !issues.contains(issue) {
                if issue.code == .missingRequiredKey, issue.message.hasSuffix("requires 'client_id'"),
                    let location = issue.location?.description, missingClientIDs.contains(location)
                {
                    continue
                }
                issues.append(issue)
            }
            return ConfigurationError(issues: issues)
        }
    }

    /// Prints every issue of `error` with its position, then a count, on stderr; returns ``ExitCode/invalid``.
    /// Shared by the commands that load a configuration (`check`, `matrix`) so they report problems alike.
    static func report(_ error: ConfigurationError, path: String) -> ExitCode {
        for issue in error.issues { CommandIO.err(issue.description) }
        let count = error.issues.count == 1 ? "1 problem" : "\(error.issues.count) problems"
        CommandIO.err("\(path): \(count)")
        return .invalid
    }

    /// Connects to the configured stores without writing to them; prints what was found. Returns the exit code.
    static func checkConnection(_ store: StoreSettings) -> ExitCode {
        let database = checkDatabase(store)
        guard let url = store.redisURL else { return database }
        do throws(StoreError) {
            _ = try RedisClient(endpoint: try RedisEndpoint(url: url), prefix: store.redisPrefix)
            CommandIO.out("store: redis: connected")
            return database
        } catch {
            CommandIO.err("store: redis: \(error)")
            return .invalid
        }
    }

    private static func checkDatabase(_ store: StoreSettings) -> ExitCode {
        switch store.kind {
        case .memory, .sqlite:
            CommandIO.out("store: \(store.kind.rawValue) (nothing to connect to)")
            return .success
        case .postgres:
            guard let url = store.postgresURL else { return .invalid }
            do throws(StoreError) {
                let version = try PostgresDatabase.probe(url: url)
                let schema =
                    version == 0
                    ? "no AuthFlow schema yet (created by the first authflow serve)"
                    : "AuthFlow schema version \(version) (this build: \(PostgresDatabase.currentSchemaVersion))"
                CommandIO.out("store: postgres: connected; \(schema)")
                return version > PostgresDatabase.currentSchemaVersion ? .invalid : .success
            } catch {
                CommandIO.err("store: postgres: \(error)")
                return .invalid
            }
        }
    }
}
