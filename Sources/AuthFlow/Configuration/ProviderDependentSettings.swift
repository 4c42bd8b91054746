/// A section's value with settings that only the resolved providers' plugins can check (an access rule naming a
/// tenant of a provider whose plugin states none, say); ``ProviderRegistry`` runs the check when it resolves a
/// configuration, so `authflow serve`, `authflow check` and `authflow matrix` report the same positioned issues.
package protocol ProviderDependentSettings {
    /// The issues of these settings against `providers` (those that resolved); empty when there are none.
    func issues(resolved providers: [ResolvedProvider]) -> [ConfigurationIssue]
}

extension Configuration {
    /// The issues of every section whose value is ``ProviderDependentSettings``, against `providers`, in the
    /// order of the sections' keys.
    package func providerDependentIssues(resolved providers: [ResolvedProvider]) -> [ConfigurationIssue] {
        sections.keys.sorted().flatMap { key in
            (sections[key]?.value.base as? any ProviderDependentSettings)?.issues(resolved: providers) ?? []
        }
    }
}
