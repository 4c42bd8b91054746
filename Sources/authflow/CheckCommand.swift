import AuthFlow
import AuthFlowPostgres
import AuthFlowProviders
import AuthFlowRedis
import Foundation

/// `authflow check [--config FILE] [--connect]`: loads and resolves a configuration, printing every problem;
/// with `--connect` also connects to the configured store.
///
/// Exit codes: 0 valid (one summary line on stdout), 1 invalid or store unreachable (on stderr), 2 usage error.
enum CheckCommand {
    static let usageText = """
        usage: authflow check [--config FILE] [--connect]

          --config FILE   the configuration to check (default: providers.yaml)
          --connect       also connect to the stores (store.postgres_url, store.redis_url) and report the
                          database's schema version; nothing is written

        Loads the file (reading ${VAR} from the environment and *_file keys from disk), resolves every
        provider against the built-in plugins, and prints each problem with its file, line and column
        on stderr (exit 1), or a one-line summary on stdout (exit 0).
        """

    static func run(_ arguments: [String]) async -> Int32 {
        var path = "providers.yaml"
        var connect = false
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "-h", "--help":
                print(usageText)
                return 0
            case "--config":
                guard index + 1 < arguments.count else { return usage("--config needs a FILE") }
                path = arguments[index + 1]
                index += 2
            case "--connect":
                connect = true
                index += 1
            case _ where argument.hasPrefix("--config="):
                path = String(argument.dropFirst("--config=".count))
                index += 1
            default:
                return usage("unexpected argument '\(argument)'")
            }
        }
        guard !path.isEmpty else { return usage("--config needs a FILE") }
        do throws(ConfigurationError) {
            let loader = ConfigurationLoader(environment: ProcessInfo.processInfo.environment)
            let configuration = try loader.load(path: path)
            let providers = try await ConfigurationResolution.resolve(configuration)
            let summary = providers.map { "\($0.name) (\($0.type), \($0.signInProtocol.rawValue))" }
            let count = providers.count == 1 ? "1 provider" : "\(providers.count) providers"
            print("OK: \(path): \(count)" + (summary.isEmpty ? "" : ": " + summary.joined(separator: ", ")))
            return connect ? checkConnection(configuration.store) : 0
        } catch {
            return report(await withResolutionIssues(error), path: path)
        }
    }

    /// The read-stage issues of `error` together with what resolving the providers that could be read
    /// refuses (a capability a plugin does not support, say), so one run shows every problem.
    static func withResolutionIssues(_ readError: ConfigurationError) async -> ConfigurationError {
        guard let readable = readError.readable, !readable.providers.isEmpty else { return readError }
        do throws(ConfigurationError) {
            _ = try await ConfigurationResolution.resolve(readable)
            return readError
        } catch {
            var issues = readError.issues
            for issue in error.issues where !issues.contains(issue) { issues.append(issue) }
            return ConfigurationError(issues: issues)
        }
    }

    /// Prints every issue of `error` with its position, then a count, on stderr; returns exit code 1.
    /// Shared by the commands that load a configuration (`check`, `matrix`) so they report problems alike.
    static func report(_ error: ConfigurationError, path: String) -> Int32 {
        for issue in error.issues { printError(issue.description) }
        let count = error.issues.count == 1 ? "1 problem" : "\(error.issues.count) problems"
        printError("\(path): \(count)")
        return 1
    }

    /// Connects to the configured stores without writing to them; prints what was found. Returns the exit code.
    static func checkConnection(_ store: StoreSettings) -> Int32 {
        let database = checkDatabase(store)
        guard let url = store.redisURL else { return database }
        do throws(StoreError) {
            _ = try RedisClient(endpoint: try RedisEndpoint(url: url), prefix: store.redisPrefix)
            print("store: redis: connected")
            return database
        } catch {
            printError("store: redis: \(error)")
            return 1
        }
    }

    private static func checkDatabase(_ store: StoreSettings) -> Int32 {
        switch store.kind {
        case .memory, .sqlite:
            print("store: \(store.kind.rawValue) (nothing to connect to)")
            return 0
        case .postgres:
            guard let url = store.postgresURL else { return 1 }
            do throws(StoreError) {
                let version = try PostgresDatabase.probe(url: url)
                let schema =
                    version == 0
                    ? "no AuthFlow schema yet (created by the first authflow serve)"
                    : "AuthFlow schema version \(version) (this build: \(PostgresDatabase.currentSchemaVersion))"
                print("store: postgres: connected; \(schema)")
                return version > PostgresDatabase.currentSchemaVersion ? 1 : 0
            } catch {
                printError("store: postgres: \(error)")
                return 1
            }
        }
    }

    private static func usage(_ problem: String) -> Int32 {
        printError("authflow check: \(problem)\n\n\(usageText)")
        return 2
    }

    private static func printError(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
