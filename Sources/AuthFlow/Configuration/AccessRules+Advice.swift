extension AccessRules {
    /// What `authflow check` and `authflow matrix` note when an unqualified group or role rule (`NAME`, `*:NAME`)
    /// trusts its name from every one of the `configured` providers and there is more than one: a group of that
    /// name from any of them satisfies a rule perhaps written for one. Every provider can supply groups (its
    /// plugin's, a `claims.groups` mapping's, or an array `groups` claim), so every configured provider counts.
    /// Empty when there is nothing to say.
    package func unqualifiedRuleAdvice(configured: [String]) -> [ProviderAdvice] {
        guard configured.count > 1 else { return [] }
        var advice: [ProviderAdvice] = []
        for (key, rules) in [("groups", groupRules), ("roles", roleRules)] {
            let names = rules.compactMap { $0?.provider == nil ? $0?.name : nil }
            guard let first = names.first else { continue }
            let shown = names.prefix(3).joined(separator: ", ") + (names.count > 3 ? ", …" : "")
            advice.append(
                ProviderAdvice(
                    code: "unqualified_access_rule",
                    finding:
                        "server.access.\(key) names \(shown) without a provider, so that name from any of the "
                        + "\(configured.count) configured providers passes it",
                    key: "server.access.\(key)",
                    change:
                        "to PROVIDER:\(first) (or PROVIDER/TENANT:\(first)), naming the provider that should vouch "
                        + "for it", hardening: true))
        }
        return advice
    }
}
