public import AuthFlow
internal import AuthFlowYAML

extension ConfigurationSection {
    /// `store:`, read into ``StoreSettings`` (where flows, accounts and sessions are kept: the backend, its
    /// file or URLs, and its timeout).
    package static let store = ConfigurationSection(
        key: "store", credentialKeys: ["postgres_url", "redis_url"],
        read: { reader, node, owner in reader.readStore(node, owner: owner).map { ConfigurationSectionValue($0) } })
}

extension Configuration {
    /// `store:`, defaults filled in when absent.
    public var store: StoreSettings {
        get { section(ConfigurationSection.store.key, as: StoreSettings.self) ?? StoreSettings() }
        set { setSection(ConfigurationSection.store.key, newValue) }
    }
}

extension ConfigurationReader {
    /// `store:`; absent keys keep their defaults, and `kind: postgres` needs `postgres_url`.
    mutating func readStore(_ node: YAMLNode, owner: YAMLMark) -> StoreSettings? {
        let known = ["kind", "path", "postgres_url", "redis_url", "redis_prefix", "operation_timeout"]
        guard let section = fields(node, owner: owner, path: "store", known: known) else { return nil }
        let (kind, kindMark) = readStoreKind(section.value("kind"))
        let redisURL = string(section.value("redis_url"), path: "store.redis_url", credential: true)
        if let redisURL, let node = section.value("redis_url") {
            let lowered = redisURL.lowercased()
            if !(lowered.hasPrefix("redis://") || lowered.hasPrefix("unix://")) {
                report(
                    .invalidValue,
                    "expected a redis:// or unix:// URL for store.redis_url, found " + Self.describeScheme(redisURL),
                    at: node.mark)
            }
        }
        let redisPrefix = string(section.value("redis_prefix"), path: "store.redis_prefix") ?? "authflow:"
        let path = string(section.value("path"), path: "store.path") ?? "authflow.sqlite"
        let postgresURL = string(section.value("postgres_url"), path: "store.postgres_url", credential: true)
        if let postgresURL, let node = section.value("postgres_url"), !Self.isPostgresURL(postgresURL) {
            report(
                .invalidValue,
                "expected a postgresql:// or postgres:// URL or a key=value conninfo for store.postgres_url, found "
                    + Self.describeScheme(postgresURL),
                at: node.mark)
        }
        if kind == .postgres, section.value("postgres_url") == nil {
            report(
                .missingKey,
                "missing required key \"postgres_url\" in store (store.kind postgres needs a libpq URL, usually "
                    + "${DATABASE_URL})",
                at: kindMark ?? section.owner)
        }
        let operationTimeout = readOperationTimeout(section.value("operation_timeout"))
        return StoreSettings(
            kind: kind, path: path, postgresURL: postgresURL, redisURL: redisURL, redisPrefix: redisPrefix,
            operationTimeout: operationTimeout)
    }

    /// `store.kind` (`sqlite` when absent) and where it was written.
    mutating func readStoreKind(_ node: YAMLNode?) -> (StoreKind, YAMLMark?) {
        var kind = StoreKind.sqlite
        var kindMark: YAMLMark?
        if let text = text(node, path: "store.kind") {
            kindMark = text.scalar.mark
            switch text.value {
            case "memory": kind = .memory
            case "sqlite": kind = .sqlite
            case "postgres", "postgresql": kind = .postgres
            case "redis":
                report(
                    .invalidValue,
                    "expected memory, sqlite or postgres for store.kind, found \"redis\" (Redis holds sessions next "
                        + "to a database, it is not a store kind)",
                    at: text.scalar.mark)
            default:
                report(
                    .invalidValue, "expected memory, sqlite or postgres for store.kind, found \(text.shown)",
                    at: text.scalar.mark)
            }
        }
        return (kind, kindMark)
    }

    /// `store.operation_timeout`, 1 s to 5 min (`StoreSettings.defaultOperationTimeout` when absent or invalid).
    mutating func readOperationTimeout(_ node: YAMLNode?) -> Double {
        var operationTimeout = StoreSettings.defaultOperationTimeout
        if let text = text(node, path: "store.operation_timeout", expected: "a duration") {
            if let seconds = ConfigurationSyntax.duration(text.value), (1...300).contains(seconds) {
                operationTimeout = Double(seconds)
            } else {
                report(
                    .invalidDuration,
                    "expected a duration like 5s or 1m (1s to 5m) for store.operation_timeout, found \(text.shown)",
                    at: text.scalar.mark)
            }
        }
        return operationTimeout
    }

    /// Whether `text` is a libpq URL or a `key=value` conninfo.
    static func isPostgresURL(_ text: String) -> Bool {
        let lowered = text.lowercased()
        if lowered.hasPrefix("postgresql://") || lowered.hasPrefix("postgres://") { return true }
        return !text.contains("://") && text.contains("=")
    }

    /// What a refused URL looks like without echoing it (it may carry a password): its scheme, or its shape.
    static func describeScheme(_ text: String) -> String {
        guard text.contains("://") else { return "a value that is neither a URL nor a conninfo" }
        let scheme = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)[0]
        guard !scheme.isEmpty, scheme.allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }) else {
            return "a URL with no valid scheme"
        }
        return "a URL with scheme \(YAMLError.quote(String(scheme)))"
    }
}
