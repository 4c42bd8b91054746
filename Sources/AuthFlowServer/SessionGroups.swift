import AuthFlow

extension ServerRoute {
    /// The groups a sign-in's session keeps: the identity's (its plugin's or claims mapping's) or, when it named
    /// none, the `groups` claim of the id_token or userinfo when that is an array of strings; bounded by
    /// ``SessionRecord/boundedGroups(_:)`` (what is left out is logged as a count, never by value).
    func sessionGroups(_ identity: VerifiedIdentity, provider: String) -> [String] {
        var groups = identity.groups
        if groups.isEmpty, let items = identity.rawClaims["groups"]?.arrayValue {
            groups = items.compactMap(\.stringValue)
        }
        guard !groups.isEmpty else { return [] }
        let bounded = SessionRecord.boundedGroups(groups)
        if bounded.dropped > 0 {
            logger.log(
                .warning, "groups left out of the session",
                metadata: [
                    "provider": provider, "count": String(bounded.dropped), "kept": String(bounded.groups.count),
                ])
        }
        return bounded.groups
    }
}
