import AuthFlowHTTP
internal import AuthFlowYAML

extension ConfigurationReader {
    static let limitKeys = [
        "max_connections", "max_connections_per_client", "request_timeout", "idle_timeout", "ipv6_prefix",
    ]
    static let rateLimitKeys = ["starts", "callbacks"]
    static let rateRuleKeys = ["per_minute", "burst"]

    /// `server.limits`; absent keys keep their defaults.
    mutating func readLimits(_ node: YAMLNode?, owner: YAMLMark) -> ConnectionLimits {
        var limits = ConnectionLimits()
        guard let node, let section = fields(node, owner: owner, path: "server.limits", known: Self.limitKeys) else {
            return limits
        }
        if let value = integer(
            section.value("max_connections"), path: "server.limits.max_connections", range: 1...1_000_000)
        {
            limits.maxConnections = value
        }
        if let value = integer(
            section.value("max_connections_per_client"), path: "server.limits.max_connections_per_client",
            range: 1...1_000_000)
        {
            limits.maxConnectionsPerClient = value
        }
        if let value = seconds(section.value("request_timeout"), path: "server.limits.request_timeout") {
            limits.requestTimeout = value
        }
        if let value = seconds(section.value("idle_timeout"), path: "server.limits.idle_timeout") {
            limits.idleTimeout = value
        }
        if let value = integer(section.value("ipv6_prefix"), path: "server.limits.ipv6_prefix", range: 16...128) {
            limits.ipv6Prefix = value
        }
        return limits
    }

    /// `server.trusted_proxies`: a list of CIDRs (or single addresses). `0.0.0.0/0` or `::/0` lets every client
    /// choose its own address through `X-Forwarded-For`, so it is refused unless `allowAny`
    /// (`server.trusted_proxies_allow_any: true`) says so.
    mutating func readTrustedProxies(_ node: YAMLNode?, allowAny: Bool = false) -> [IPNetwork] {
        guard let node else { return [] }
        guard case .sequence(let items, _) = node else {
            report(
                .wrongType,
                "expected a list of CIDRs for server.trusted_proxies (e.g. [10.0.0.0/8]), found \(node.foundDescription)",
                at: node.mark)
            return []
        }
        var networks: [IPNetwork] = []
        for item in items {
            guard let text = text(item, path: "server.trusted_proxies", expected: "a CIDR") else { continue }
            if let network = IPNetwork(parsing: text.value) {
                if network.isEverything, !allowAny {
                    report(
                        .invalidValue,
                        "expected the networks of your reverse proxies in server.trusted_proxies, found \(text.shown), "
                            + "which lets any client choose its own address with X-Forwarded-For (set "
                            + "server.trusted_proxies_allow_any: true if every peer really is a trusted proxy)",
                        at: text.scalar.mark)
                    continue
                }
                networks.append(network)
            } else {
                report(
                    .invalidValue,
                    "expected an IPv4 or IPv6 CIDR like 10.0.0.0/8 or ::1/128 in server.trusted_proxies, "
                        + "found \(text.shown)", at: text.scalar.mark)
            }
        }
        return networks
    }

    /// `server.rate_limits`: `off`, or `starts`/`callbacks` rules; absent keys keep their defaults.
    mutating func readRateLimits(_ node: YAMLNode?, owner: YAMLMark) -> RateLimitSettings? {
        var settings = RateLimitSettings()
        guard let node else { return settings }
        if case .scalar(let scalar) = node, !scalar.isNull {
            if scalar.value == "off" || scalar.boolValue == false { return nil }
            report(
                .invalidValue,
                "expected off or a mapping with starts and callbacks for server.rate_limits, found "
                    + node.foundDescription, at: node.mark)
            return settings
        }
        guard let section = fields(node, owner: owner, path: "server.rate_limits", known: Self.rateLimitKeys)
        else { return settings }
        settings.starts = rule(section.value("starts"), path: "server.rate_limits.starts", default: settings.starts)
        settings.callbacks = rule(
            section.value("callbacks"), path: "server.rate_limits.callbacks", default: settings.callbacks)
        return settings
    }

    private mutating func rule(
        _ node: YAMLNode?, path: String, default rule: RateLimitSettings.Rule
    ) -> RateLimitSettings.Rule {
        guard let node, let section = fields(node, owner: node.mark, path: path, known: Self.rateRuleKeys) else {
            return rule
        }
        var result = rule
        if let value = integer(section.value("per_minute"), path: "\(path).per_minute", range: 1...10_000_000) {
            result.perMinute = Double(value)
        }
        if let value = integer(section.value("burst"), path: "\(path).burst", range: 1...10_000_000) {
            result.burst = Double(value)
        }
        return result
    }

    /// A whole number in `range`.
    mutating func integer(_ node: YAMLNode?, path: String, range: ClosedRange<Int>) -> Int? {
        guard let text = text(node, path: path, expected: "a whole number") else { return nil }
        guard !text.value.isEmpty, text.value.utf8.count <= 9, text.value.utf8.allSatisfy({ (48...57).contains($0) }),
            let value = Int(text.value), range.contains(value)
        else {
            report(
                .invalidValue,
                "expected a whole number from \(range.lowerBound) to \(range.upperBound) for \(path), found \(text.shown)",
                at: text.scalar.mark)
            return nil
        }
        return value
    }

    /// A duration of 1 s to 1 h (`10s`, `2m`).
    private mutating func seconds(_ node: YAMLNode?, path: String) -> Int? {
        guard let text = text(node, path: path, expected: "a duration") else { return nil }
        guard let value = ConfigurationSyntax.duration(text.value), (1...3600).contains(value) else {
            report(
                .invalidDuration,
                "expected a duration like 10s or 2m (1s to 1h) for \(path), found \(text.shown)", at: text.scalar.mark)
            return nil
        }
        return value
    }
}
