package import AuthFlow
internal import AuthFlowYAML

/// A tenant-qualified group or role rule of `server.access` and where it was written.
package struct TenantRuleSite: Sendable, Hashable {
    /// `server.access.groups` or `server.access.roles`.
    package let path: String
    /// The rule, with its provider and tenant.
    package let rule: MembershipRule
    /// Where the rule was written.
    package let location: SourceLocation?
}

extension ServerSettings: ProviderDependentSettings {
    /// A tenant-qualified rule whose provider's plugin states no tenant (it could never match), or whose tenant
    /// is not one the plugin could state, each at the rule's position. Rules naming a provider that is not
    /// configured, or that did not resolve, were reported already.
    package func issues(resolved providers: [ResolvedProvider]) -> [ConfigurationIssue] {
        tenantRuleSites.compactMap { site in
            guard let name = site.rule.provider, let tenant = site.rule.tenant,
                let provider = providers.first(where: { $0.name == name })
            else { return nil }
            guard let plugin = provider.plugin.preparing, let tenantForm = plugin.tenantForm else {
                return ConfigurationIssue(
                    code: .invalidValue,
                    message:
                        "expected PROVIDER/TENANT only for a provider with tenants in \(site.path), found a tenant for "
                        + "\(name) (type \(provider.type)), whose sign-ins name none; write \(name):\(site.rule.name)",
                    location: site.location)
            }
            guard plugin.isTenant(tenant) else {
                return ConfigurationIssue(
                    code: .invalidValue,
                    message:
                        "expected \(tenantForm) as the tenant of \(name) in \(site.path), found "
                        + YAMLError.quote(tenant),
                    location: site.location)
            }
            return nil
        }
    }
}
