import AuthFlow

/// What a new session keeps of an identity's groups, roles and tenant, bounded as ``SessionRecord`` allows (what
/// is left out is logged).
struct SessionMembership: Sendable {
    let logger: any ServerLogger

    /// The groups a sign-in's session keeps: the identity's (its plugin's or claims mapping's) or, when it named
    /// none, the `groups` claim of the id_token or userinfo when that is an array of strings; bounded by
    /// ``SessionRecord/boundedGroups(_:)`` (what is left out is logged as a count, never by value).
    func groups(of identity: VerifiedIdentity, provider: String) -> [String] {
        var groups = identity.groups
        if groups.isEmpty, let items = identity.rawClaims["groups"]?.arrayValue {
            groups = items.compactMap(\.stringValue)
        }
        return bounded(groups, kind: "groups", provider: provider)
    }

    /// The roles a sign-in's session keeps: the identity's (its plugin's), never a claim read by name, bounded as
    /// groups are.
    func roles(of identity: VerifiedIdentity, provider: String) -> [String] {
        bounded(identity.roles, kind: "roles", provider: provider)
    }

    /// The tenant a sign-in's session keeps: the identity's, when it is 1 to ``SessionRecord/maximumGroupBytes``
    /// bytes; `nil` otherwise (a tenant rule then matches nothing).
    func tenant(of identity: VerifiedIdentity) -> String? {
        identity.tenant.flatMap { $0.isEmpty || $0.utf8.count > SessionRecord.maximumGroupBytes ? nil : $0 }
    }

    /// `names` within ``SessionRecord/boundedGroups(_:)``, logging how many of the `kind` were left out.
    private func bounded(_ names: [String], kind: String, provider: String) -> [String] {
        guard !names.isEmpty else { return [] }
        let bounded = SessionRecord.boundedGroups(names)
        if bounded.dropped > 0 {
            logger.log(
                .warning, "\(kind) left out of the session",
                metadata: [
                    "provider": provider, "count": String(bounded.dropped), "kept": String(bounded.groups.count),
                ])
        }
        return bounded.groups
    }
}
