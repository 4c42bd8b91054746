internal import AuthFlow
internal import AuthFlowYAML

extension ConfigurationReader {
    /// `server.access.groups` or `server.access.roles` (`key`): rules written as `MembershipRule` reads them,
    /// each at most ``SessionRecord/maximumGroupBytes`` bytes without control characters; a malformed one is
    /// reported at its position. Returns the rules as written and where each tenant-qualified one was written
    /// (resolution checks its provider has tenants: ``ServerSettings/tenantRuleSites``).
    mutating func membershipRules(_ node: YAMLNode?, key: String) -> (rules: [String], sites: [TenantRuleSite]) {
        let path = "server.access.\(key)"
        let kind = key == "groups" ? "group" : "role"
        var rules: [String] = []
        var sites: [TenantRuleSite] = []
        for item in listItems(node, path: path) {
            guard item.value.utf8.count <= SessionRecord.maximumGroupBytes,
                !item.value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            else {
                report(
                    .invalidValue,
                    "expected a \(kind) rule of at most \(SessionRecord.maximumGroupBytes) bytes without control "
                        + "characters in \(path), found \(item.shown)", at: item.scalar.mark)
                continue
            }
            guard let rule = MembershipRule(parsing: item.value) else {
                report(
                    .invalidValue,
                    "expected \(kind.uppercased()), PROVIDER:\(kind.uppercased()), PROVIDER/TENANT:\(kind.uppercased()) "
                        + "or *:\(kind.uppercased()) in \(path) (a name with a ':' of its own is written "
                        + "*:NAME), found \(item.shown)", at: item.scalar.mark)
                continue
            }
            rules.append(item.value)
            if rule.tenant != nil {
                sites.append(TenantRuleSite(path: path, rule: rule, location: location(item.scalar.mark)))
            }
        }
        return (rules, sites)
    }

    /// Reports every group or role rule whose provider (`PROVIDER:NAME`, `PROVIDER/TENANT:NAME`) is not a key of
    /// `providers:`, at its own position, with the nearest configured name.
    mutating func checkMembershipRuleProviders(_ access: YAMLNode?, providers: YAMLNode?) {
        let known = providers?.mapping?.map(\.key.value) ?? []
        for key in ["groups", "roles"] {
            guard case .sequence(let items, _)? = access?.mapping?.first(where: { $0.key.value == key })?.value
            else { continue }
            for item in items {
                // A `${VAR}` rule names its provider only once expanded; one naming no configured provider
                // matches nothing.
                guard case .scalar(let scalar) = item, !scalar.value.contains("${"),
                    let provider = MembershipRule(parsing: scalar.value)?.provider, !known.contains(provider)
                else { continue }
                var message =
                    "expected the name of a provider configured under providers: before the ':' of "
                    + "server.access.\(key), found \(YAMLError.quote(provider))"
                if let suggestion = EditDistance.nearest(to: provider, in: known) {
                    message += "; did you mean \(YAMLError.quote(suggestion))?"
                }
                message += " (a name with a ':' of its own is written *:NAME)"
                report(.invalidValue, message, at: scalar.mark)
            }
        }
    }
}
