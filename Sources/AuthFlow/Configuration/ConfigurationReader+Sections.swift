internal import AuthFlowYAML

extension ConfigurationReader {
    static let rootKeys = ["server", "sandbox", "store", "providers"]
    static let serverKeys = [
        "listen", "public_url", "secret", "allowed_return_to", "session_ttl", "native_session_ttl", "signup",
        "link_by_verified_email",
        "metrics_listen", "log_format", "path_prefix", "access",
        "limits", "trusted_proxies", "trusted_proxies_allow_any", "rate_limits",
    ]

    /// The whole configuration, or `nil` when something could not be read (the issues say what).
    mutating func readConfiguration(_ root: YAMLNode) -> Configuration? {
        let start = YAMLMark(line: 1, column: 1)
        guard let top = fields(root, owner: root.mark, path: "", known: Self.rootKeys) else { return nil }
        var server: ServerSettings?
        if let pair = top["server"] {
            server = readServer(pair.value, owner: pair.key.mark)
        }
        var sandbox: SandboxSettings?
        if let pair = top["sandbox"],
            let section = fields(
                pair.value, owner: pair.key.mark, path: "sandbox", known: ["listen", "microsoft_tenants"])
        {
            let listen = listenAddress(section.value("listen"), path: "sandbox.listen")
            sandbox = SandboxSettings(
                listen: listen ?? ListenAddress(host: "127.0.0.1", port: 0),
                microsoftTenants: microsoftTenants(section.value("microsoft_tenants")))
        }
        var store = StoreSettings()
        if let pair = top["store"] {
            store = readStore(pair.value, owner: pair.key.mark) ?? store
        }
        var providers: [ProviderSettings] = []
        if let pair = top["providers"] {
            providers = readProviders(
                pair.value, owner: pair.key.mark, callbackBase: server.map { $0.publicURL + $0.pathPrefix })
        } else {
            report(.missingKey, "missing required key \"providers\"", at: root.mapping == nil ? start : root.mark)
        }
        if let pair = top["server"] {
            checkEmailLinkProviders(pair.value, providers: top["providers"]?.value)
            checkAccessProviders(pair.value, providers: top["providers"]?.value)
        }
        var configuration = Configuration(server: server, sandbox: sandbox, store: store, providers: providers)
        configuration.secretFiles = secretFiles
        return configuration
    }

    mutating func readServer(_ node: YAMLNode, owner: YAMLMark) -> ServerSettings? {
        guard let section = fields(node, owner: owner, path: "server", known: Self.serverKeys) else { return nil }
        let listen =
            listenAddress(section.value("listen"), path: "server.listen")
            ?? ListenAddress(host: "127.0.0.1", port: 8080)

        var publicURL: String?
        if section.value("public_url") == nil {
            reportMissing("public_url", in: section)
        } else if let text = text(section.value("public_url"), path: "server.public_url", expected: "a URL"),
            let parts = checkURL(text, path: "server.public_url", allowsQuery: false)
        {
            _ = parts
            var base = Substring(text.value)
            while base.hasSuffix("/") { base = base.dropLast() }
            publicURL = String(base)
        }

        let secret = serverSecret(section)

        var allowedReturnTo = ["/"]
        if let node = section.value("allowed_return_to"), case .sequence(let items, _) = node {
            allowedReturnTo = []
            for item in items {
                guard let text = text(item, path: "server.allowed_return_to") else { continue }
                if isPathPrefix(text.value) || isOrigin(text.value) {
                    allowedReturnTo.append(text.value)
                } else {
                    report(
                        .invalidValue,
                        "expected a path prefix starting with \"/\" or an origin like https://app.example.com in "
                            + "server.allowed_return_to, found \(text.shown)", at: text.scalar.mark)
                }
            }
        } else if let node = section.value("allowed_return_to") {
            report(
                .wrongType, "expected a list for server.allowed_return_to (e.g. [/]), found \(node.foundDescription)",
                at: node.mark)
        }

        var sessionTTL: Double = 8 * 3600
        if let text = text(section.value("session_ttl"), path: "server.session_ttl", expected: "a duration") {
            if let seconds = ConfigurationSyntax.duration(text.value), seconds > 0, seconds <= 400 * 86_400 {
                sessionTTL = Double(seconds)
            } else {
                report(
                    .invalidDuration,
                    "expected a duration like 8h, 30m, 90s or 1h30m (at most 400d) for server.session_ttl, "
                        + "found \(text.shown)", at: text.scalar.mark)
            }
        }
        var nativeSessionTTL: Double = 30 * 86_400
        if let text = text(
            section.value("native_session_ttl"), path: "server.native_session_ttl", expected: "a duration")
        {
            if let seconds = ConfigurationSyntax.duration(text.value), seconds > 0, seconds <= 400 * 86_400 {
                nativeSessionTTL = Double(seconds)
            } else {
                report(
                    .invalidDuration,
                    "expected a duration like 30d, 8h or 90m (at most 400d) for server.native_session_ttl, "
                        + "found \(text.shown)", at: text.scalar.mark)
            }
        }
        let signup = bool(section.value("signup"), path: "server.signup") ?? true
        let link = emailLinkPolicy(section.value("link_by_verified_email"))
        let metricsListen = metricsListen(section.value("metrics_listen"))
        let logFormat = logFormat(section.value("log_format"))
        let limits = readLimits(section.value("limits"), owner: section["limits"]?.key.mark ?? section.owner)
        let allowAny = bool(section.value("trusted_proxies_allow_any"), path: "server.trusted_proxies_allow_any")
        let trustedProxies = readTrustedProxies(section.value("trusted_proxies"), allowAny: allowAny ?? false)
        let rateLimits = readRateLimits(
            section.value("rate_limits"), owner: section["rate_limits"]?.key.mark ?? section.owner)
        let pathPrefix = pathPrefix(section.value("path_prefix"))
        let access = readAccess(section.value("access"), owner: section["access"]?.key.mark ?? section.owner)
        guard let publicURL else { return nil }
        return ServerSettings(
            listen: listen, publicURL: publicURL, secret: secret, allowedReturnTo: allowedReturnTo,
            sessionTTL: sessionTTL, signup: signup, linkByVerifiedEmail: link, limits: limits,
            trustedProxies: trustedProxies, rateLimits: rateLimits, metricsListen: metricsListen,
            logFormat: logFormat, nativeSessionTTL: nativeSessionTTL, pathPrefix: pathPrefix, access: access)
    }

    /// `server.access`: lists of email domains (ASCII only, lowercased), emails and provider names; empty when
    /// absent. Provider names are checked against `providers:` by ``checkAccessProviders(_:providers:)``.
    private mutating func readAccess(_ node: YAMLNode?, owner: YAMLMark) -> AccessRules {
        guard let node, !node.isNullScalar,
            let section = fields(
                node, owner: owner, path: "server.access", known: ["email_domains", "emails", "providers"])
        else { return AccessRules() }
        var rules = AccessRules()
        for item in listItems(section.value("email_domains"), path: "server.access.email_domains") {
            if AccessRules.hasNonASCII(item.value) {
                report(
                    .invalidValue,
                    "expected an ASCII domain in server.access.email_domains, found \(item.shown); write an "
                        + "internationalized domain in its IDNA ASCII form (xn--…), as verified emails carry it",
                    at: item.scalar.mark)
            } else if let domain = AccessRules.normalizedDomain(item.value) {
                rules.emailDomains.append(domain)
            } else {
                report(
                    .invalidValue,
                    "expected a domain like example.com (letters, digits, - and dots, no @) in "
                        + "server.access.email_domains, found \(item.shown)", at: item.scalar.mark)
            }
        }
        for item in listItems(section.value("emails"), path: "server.access.emails") {
            if let email = AccessRules.parseEmail(item.value) {
                rules.emails.append(email.local + "@" + email.domain)
            } else {
                report(
                    .invalidValue,
                    "expected an email like ada@example.com (one @, an ASCII domain; IDNA in its xn-- form) in "
                        + "server.access.emails, found \(item.shown)", at: item.scalar.mark)
            }
        }
        rules.providers = listItems(section.value("providers"), path: "server.access.providers").map(\.value)
        return rules
    }

    /// `sandbox.microsoft_tenants`: distinct tenant GUIDs (lowercased), not the personal-accounts tenant, which the
    /// Microsoft emulator always knows.
    mutating func microsoftTenants(_ node: YAMLNode?) -> [String] {
        let path = "sandbox.microsoft_tenants"
        let personalAccounts = "9188040d-6c67-4c5b-b112-36a304b66dad"
        var tenants: [String] = []
        for item in listItems(node, path: path) {
            let id = item.value.lowercased()
            let groups = id.split(separator: "-", omittingEmptySubsequences: false)
            guard groups.map(\.count) == [8, 4, 4, 4, 12], groups.allSatisfy({ $0.allSatisfy(\.isHexDigit) }) else {
                report(
                    .invalidValue,
                    "expected a tenant GUID (8-4-4-4-12 hexadecimal digits) in \(path), found \(item.shown)",
                    at: item.scalar.mark)
                continue
            }
            guard id != personalAccounts else {
                report(
                    .invalidValue,
                    "\(path) lists the personal-accounts tenant \(personalAccounts), which is always known",
                    at: item.scalar.mark)
                continue
            }
            guard !tenants.contains(id) else {
                report(.invalidValue, "\(path) lists \(item.shown) twice", at: item.scalar.mark)
                continue
            }
            tenants.append(id)
        }
        return tenants
    }

    /// The non-empty scalar items of the list `node` at `path`; a non-list or an empty item is reported.
    private mutating func listItems(_ node: YAMLNode?, path: String) -> [Text] {
        guard let node, !node.isNullScalar else { return [] }
        guard case .sequence(let items, _) = node else {
            report(
                .wrongType, "expected a list for \(path) (e.g. [a, b]), found \(node.foundDescription)", at: node.mark)
            return []
        }
        var texts: [Text] = []
        for item in items {
            guard let text = text(item, path: path) else { continue }
            if text.value.isEmpty {
                report(
                    .invalidValue, "expected a non-empty string in \(path), found an empty one", at: text.scalar.mark)
            } else {
                texts.append(text)
            }
        }
        return texts
    }

    /// `server.path_prefix`, or the default when it is absent or refused (the issue says why).
    private mutating func pathPrefix(_ node: YAMLNode?) -> String {
        guard let text = text(node, path: "server.path_prefix", expected: "a path like /auth") else {
            return ServerSettings.defaultPathPrefix
        }
        guard ServerSettings.isValidPathPrefix(text.value) else {
            report(
                .invalidValue,
                "expected a path like /auth or /api/auth for server.path_prefix (starting with \"/\", segments of "
                    + "letters, digits, - _ . ~, no . or .. segment, no trailing \"/\"), found \(text.shown)",
                at: text.scalar.mark)
            return ServerSettings.defaultPathPrefix
        }
        return text.value
    }

    private mutating func serverSecret(_ section: Fields) -> Secret? {
        guard let node = section.value("secret") else {
            if !isSandbox { reportMissing("secret", in: section) }
            return nil
        }
        guard let value = string(node, path: "server.secret", credential: true) else { return nil }
        // Written inline (not `${VAR}`), the secret lives in the configuration file itself.
        if case .scalar(let scalar) = node, !scalar.value.contains("${") {
            secretFiles.append(SecretFile(key: "server.secret", path: fileName))
        }
        let bytes = value.utf8.count
        guard bytes >= 32 else {
            report(
                .weakSecret,
                "server.secret must be at least 32 bytes, found \(bytes) bytes (generate one with: openssl rand -hex 32)",
                at: node.mark)
            return nil
        }
        return Secret(value)
    }

    private func isPathPrefix(_ text: String) -> Bool {
        text.hasPrefix("/") && !text.hasPrefix("//")
            && !text.unicodeScalars.contains { $0 == "\\" || $0.value <= 0x20 || $0.value == 0x7F }
    }

    private func isOrigin(_ text: String) -> Bool {
        guard let parts = ConfigurationSyntax.url(text), !parts.hasUserInfo, !parts.hasQuery, !parts.hasFragment,
            parts.path.isEmpty || parts.path == "/"
        else { return false }
        return parts.scheme == "https" || (parts.scheme == "http" && parts.isLoopback)
    }

    mutating func listenAddress(_ node: YAMLNode?, path: String) -> ListenAddress? {
        guard let text = text(node, path: path, expected: "host:port") else { return nil }
        guard let address = ListenAddress(parsing: text.value) else {
            report(
                .invalidValue, "expected host:port for \(path) (e.g. 127.0.0.1:8080), found \(text.shown)",
                at: text.scalar.mark)
            return nil
        }
        return address
    }

    mutating func readStore(_ node: YAMLNode, owner: YAMLMark) -> StoreSettings? {
        let known = ["kind", "path", "postgres_url", "redis_url", "redis_prefix", "operation_timeout"]
        guard let section = fields(node, owner: owner, path: "store", known: known) else { return nil }
        var kind = StoreKind.sqlite
        var kindMark: YAMLMark?
        if let text = text(section.value("kind"), path: "store.kind") {
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
        var operationTimeout = StoreSettings.defaultOperationTimeout
        if let text = text(section.value("operation_timeout"), path: "store.operation_timeout", expected: "a duration")
        {
            if let seconds = ConfigurationSyntax.duration(text.value), (1...300).contains(seconds) {
                operationTimeout = Double(seconds)
            } else {
                report(
                    .invalidDuration,
                    "expected a duration like 5s or 1m (1s to 5m) for store.operation_timeout, found \(text.shown)",
                    at: text.scalar.mark)
            }
        }
        return StoreSettings(
            kind: kind, path: path, postgresURL: postgresURL, redisURL: redisURL, redisPrefix: redisPrefix,
            operationTimeout: operationTimeout)
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

extension YAMLNode {
    /// Whether this is a `null` scalar (a key written with no value).
    fileprivate var isNullScalar: Bool {
        if case .scalar(let scalar) = self { return scalar.isNull }
        return false
    }
}
