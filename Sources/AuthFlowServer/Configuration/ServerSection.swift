public import AuthFlow
internal import AuthFlowYAML

extension ConfigurationSection {
    /// `server:`, read into ``ServerSettings``; its `public_url` and `path_prefix` give every provider's default
    /// redirect URI, and the provider names it lists are checked against `providers:`.
    package static let server = ConfigurationSection(
        key: "server", credentialKeys: ["secret"],
        read: { reader, node, owner in reader.readServer(node, owner: owner).map { ConfigurationSectionValue($0) } },
        check: { reader, node, providers in
            reader.checkEmailLinkProviders(node, providers: providers)
            reader.checkAccessProviders(node, providers: providers)
            reader.checkMembershipRuleProviders(
                node.mapping?.first(where: { $0.key.value == "access" })?.value, providers: providers)
        },
        callbackBase: { value in
            (value.value.base as? ServerSettings).map { ($0.publicURL, $0.pathPrefix) }
        })
}

extension Configuration {
    /// `server:`, when present (needed by `authflow serve`). Setting it also sets `Configuration.publicURL`
    /// and `Configuration.pathPrefix`, which the providers' default redirect URIs follow.
    public var server: ServerSettings? {
        get { section(ConfigurationSection.server.key, as: ServerSettings.self) }
        set {
            setSection(ConfigurationSection.server.key, newValue)
            publicURL = newValue?.publicURL
            pathPrefix = newValue?.pathPrefix ?? Configuration.defaultPathPrefix
        }
    }

    /// Creates a configuration of `providers` served as `server` says.
    package init(server: ServerSettings?, providers: [ProviderSettings]) {
        self.init(providers: providers)
        self.server = server
    }
}

extension ConfigurationReader {
    static let serverKeys = [
        "listen", "public_url", "secret", "previous_secrets", "allowed_return_to", "session_ttl", "native_session_ttl",
        "native_session_max_age", "session_idle_timeout", "signup",
        "link_by_verified_email",
        "metrics_listen", "log_format", "path_prefix", "access",
        "limits", "trusted_proxies", "trusted_proxies_allow_any", "rate_limits",
        "audit_log",
        "tracing",
    ]

    mutating func readServer(_ node: YAMLNode, owner: YAMLMark) -> ServerSettings? {
        guard let section = fields(node, owner: owner, path: "server", known: Self.serverKeys) else { return nil }
        let listen =
            listenAddress(section.value("listen"), path: "server.listen")
            ?? ListenAddress(host: "127.0.0.1", port: 8080)

        let publicURL = serverPublicURL(section)
        let secret = serverSecret(section)
        let previousSecrets = previousServerSecrets(section.value("previous_secrets"))
        let allowedReturnTo = allowedReturnTo(section.value("allowed_return_to"))
        let sessionTTL = serverDuration(
            section.value("session_ttl"), path: "server.session_ttl", examples: "8h, 30m, 90s or 1h30m",
            default: 8 * 3600)
        let nativeSessionTTL = serverDuration(
            section.value("native_session_ttl"), path: "server.native_session_ttl", examples: "30d, 8h or 90m",
            default: 30 * 86_400)
        let nativeMaxAge = nativeSessionMaxAge(
            section.value("native_session_max_age"), nativeSessionTTL: nativeSessionTTL)
        let idleTimeout = sessionIdleTimeout(section.value("session_idle_timeout"), sessionTTL: sessionTTL)
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
        let auditLog = auditLog(section.value("audit_log"))
        let tracing = readTracing(section.value("tracing"), owner: section["tracing"]?.key.mark ?? section.owner)
        guard let publicURL else { return nil }
        var settings = ServerSettings(
            listen: listen, publicURL: publicURL, secret: secret, allowedReturnTo: allowedReturnTo,
            sessionTTL: sessionTTL, signup: signup, linkByVerifiedEmail: link, limits: limits,
            trustedProxies: trustedProxies, rateLimits: rateLimits, metricsListen: metricsListen,
            logFormat: logFormat, nativeSessionTTL: nativeSessionTTL, pathPrefix: pathPrefix, access: access.rules,
            previousSecrets: previousSecrets, sessionIdleTimeout: idleTimeout, nativeSessionMaxAge: nativeMaxAge)
        settings.tenantRuleSites = access.tenantRuleSites
        settings.auditLog = auditLog
        settings.tracing = tracing
        return settings
    }

    /// `server.public_url` (required): a URL without a query, kept without trailing slashes.
    private mutating func serverPublicURL(_ section: Fields) -> String? {
        guard section.value("public_url") != nil else {
            reportMissing("public_url", in: section)
            return nil
        }
        guard let text = text(section.value("public_url"), path: "server.public_url", expected: "a URL"),
            checkURL(text, path: "server.public_url", allowsQuery: false) != nil
        else { return nil }
        var base = Substring(text.value)
        while base.hasSuffix("/") { base = base.dropLast() }
        return String(base)
    }

    /// `server.allowed_return_to`: path prefixes and origins (`[/]` when absent).
    private mutating func allowedReturnTo(_ node: YAMLNode?) -> [String] {
        guard let node else { return ["/"] }
        guard case .sequence(let items, _) = node else {
            report(
                .wrongType, "expected a list for server.allowed_return_to (e.g. [/]), found \(node.foundDescription)",
                at: node.mark)
            return ["/"]
        }
        var allowed: [String] = []
        for item in items {
            guard let text = text(item, path: "server.allowed_return_to") else { continue }
            if isPathPrefix(text.value) || isOrigin(text.value) {
                allowed.append(text.value)
            } else {
                report(
                    .invalidValue,
                    "expected a path prefix starting with \"/\" or an origin like https://app.example.com in "
                        + "server.allowed_return_to, found \(text.shown)", at: text.scalar.mark)
            }
        }
        return allowed
    }

    /// A session lifetime at `path`: a duration of at most 400 days, `defaultSeconds` when absent or invalid.
    private mutating func serverDuration(
        _ node: YAMLNode?, path: String, examples: String, default defaultSeconds: Double
    ) -> Double {
        guard let text = text(node, path: path, expected: "a duration") else { return defaultSeconds }
        if let seconds = ConfigurationSyntax.duration(text.value), seconds > 0, seconds <= 400 * 86_400 {
            return Double(seconds)
        }
        report(
            .invalidDuration,
            "expected a duration like \(examples) (at most 400d) for \(path), found \(text.shown)",
            at: text.scalar.mark)
        return defaultSeconds
    }

    /// `server.native_session_max_age`: a duration of at most 400 days, not shorter than `native_session_ttl` (a
    /// refresh chain outlives its first session); `nil` when absent or refused, for the default.
    private mutating func nativeSessionMaxAge(_ node: YAMLNode?, nativeSessionTTL: Double) -> Double? {
        guard let node else { return nil }
        let path = "server.native_session_max_age"
        guard let text = text(node, path: path, expected: "a duration") else { return nil }
        guard let seconds = ConfigurationSyntax.duration(text.value), seconds > 0, seconds <= 400 * 86_400 else {
            report(
                .invalidDuration, "expected a duration like 90d or 30d (at most 400d) for \(path), found \(text.shown)",
                at: text.scalar.mark)
            return nil
        }
        guard Double(seconds) >= nativeSessionTTL else {
            report(
                .invalidValue,
                "expected \(path) at least server.native_session_ttl (\(Int(nativeSessionTTL))s), found \(text.shown) "
                    + "(\(seconds)s): a bearer refresh chain lasts at least its first session", at: text.scalar.mark)
            return nil
        }
        return Double(seconds)
    }

    /// `server.session_idle_timeout`: a duration shorter than `session_ttl`, or `off` (the default, as when
    /// absent).
    private mutating func sessionIdleTimeout(_ node: YAMLNode?, sessionTTL: Double) -> Double? {
        guard let text = text(node, path: "server.session_idle_timeout", expected: "a duration or off") else {
            return nil
        }
        if text.value == "off" { return nil }
        guard let seconds = ConfigurationSyntax.duration(text.value), seconds > 0 else {
            report(
                .invalidDuration,
                "expected a duration like 30m, 2h or 1h30m, or off, for server.session_idle_timeout, found "
                    + text.shown, at: text.scalar.mark)
            return nil
        }
        guard Double(seconds) < sessionTTL else {
            report(
                .invalidValue,
                "expected server.session_idle_timeout shorter than server.session_ttl (\(Int(sessionTTL))s), found "
                    + "\(text.shown) (\(seconds)s): a session ends at session_ttl whether used or not",
                at: text.scalar.mark)
            return nil
        }
        return Double(seconds)
    }

    /// `server.access`: lists of email domains (ASCII only, lowercased), emails, provider names, and group and role
    /// rules (``membershipRules(_:key:)``), with where its tenant-qualified rules were written; empty when absent.
    /// Provider names are checked against `providers:` by ``checkAccessProviders(_:providers:)`` and
    /// ``checkMembershipRuleProviders(_:providers:)``.
    private mutating func readAccess(
        _ node: YAMLNode?, owner: YAMLMark
    ) -> (rules: AccessRules, tenantRuleSites: [TenantRuleSite]) {
        let keys = ["email_domains", "emails", "providers", "groups", "roles"]
        guard let node, !node.isNullScalar,
            let section = fields(node, owner: owner, path: "server.access", known: keys)
        else { return (AccessRules(), []) }
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
        let groups = membershipRules(section.value("groups"), key: "groups")
        let roles = membershipRules(section.value("roles"), key: "roles")
        rules.groups = groups.rules
        rules.roles = roles.rules
        return (rules, groups.sites + roles.sites)
    }

    /// `sandbox.microsoft_tenants`: distinct tenant GUIDs (lowercased), not the personal-accounts tenant, which the
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

    /// `server.previous_secrets`: a list written like `server.secret` (inline or `${VAR}`), each at least 32 bytes;
    /// a short one is reported with its position.
    private mutating func previousServerSecrets(_ node: YAMLNode?) -> [Secret] {
        guard let node, !node.isNullScalar else { return [] }
        guard case .sequence(let items, _) = node else {
            report(
                .wrongType,
                "expected a list for server.previous_secrets (e.g. [\"${OLD_SECRET}\"]), found "
                    + (node.scalar != nil ? "a single value (write it as a list item)" : node.foundDescription),
                at: node.mark)
            return []
        }
        var secrets: [Secret] = []
        for (index, item) in items.enumerated() {
            let path = "server.previous_secrets[\(index)]"
            redactCredential(at: item.mark)
            guard let value = string(item, path: path, credential: true) else { continue }
            if case .scalar(let scalar) = item, !scalar.value.contains("${") {
                secretFiles.append(SecretFile(key: path, path: fileName))
            }
            let bytes = value.utf8.count
            guard bytes >= 32 else {
                report(
                    .weakSecret,
                    "\(path) must be at least 32 bytes, found \(bytes) bytes (each previous secret is a former "
                        + "server.secret)", at: item.mark)
                continue
            }
            secrets.append(Secret(value))
        }
        return secrets
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
}
