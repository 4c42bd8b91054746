internal import AuthFlowYAML

extension ConfigurationReader {
    /// `server.link_by_verified_email`: a boolean, or a list of provider names (checked against `providers:`
    /// by ``checkEmailLinkProviders(_:providers:)`` once that section is read).
    mutating func emailLinkPolicy(_ node: YAMLNode?) -> EmailLinkPolicy {
        let path = "server.link_by_verified_email"
        guard let node else { return .off }
        if case .sequence = node {
            return .providers(Set(stringList(node, path: path) ?? []))
        }
        return bool(node, path: path).map { $0 ? .allProviders : .off } ?? .off
    }

    /// Reports every name in a `server.link_by_verified_email` list that is not a key of `providers:`, at
    /// its own position, suggesting the nearest configured name.
    mutating func checkEmailLinkProviders(_ server: YAMLNode, providers: YAMLNode?) {
        let node = server.mapping?.first(where: { $0.key.value == "link_by_verified_email" })?.value
        checkProviderNames(node, path: "server.link_by_verified_email", providers: providers, listingKnown: true)
    }

    /// Reports every name in `server.access.providers` that is not a key of `providers:`, at its own position.
    mutating func checkAccessProviders(_ server: YAMLNode, providers: YAMLNode?) {
        let access = server.mapping?.first(where: { $0.key.value == "access" })?.value
        let node = access?.mapping?.first(where: { $0.key.value == "providers" })?.value
        checkProviderNames(node, path: "server.access.providers", providers: providers, listingKnown: false)
    }

    /// Reports each name of the list `node` (at `path`) that is not a key of `providers:`, at its own position,
    /// with the nearest configured name, or (`listingKnown`) the configured names when none is near.
    private mutating func checkProviderNames(
        _ node: YAMLNode?, path: String, providers: YAMLNode?, listingKnown: Bool
    ) {
        guard let node, case .sequence(let items, _) = node else { return }
        let known = providers?.mapping?.map(\.key.value) ?? []
        for item in items {
            guard case .scalar(let scalar) = item, !scalar.value.isEmpty, !known.contains(scalar.value) else {
                continue
            }
            var message =
                "expected the name of a provider configured under providers: in \(path), "
                + "found \(YAMLError.quote(scalar.value))"
            if let suggestion = EditDistance.nearest(to: scalar.value, in: known) {
                message += "; did you mean \(YAMLError.quote(suggestion))?"
            } else if listingKnown && !known.isEmpty {
                message += "; configured providers: " + known.joined(separator: ", ")
            }
            report(.invalidValue, message, at: scalar.mark)
        }
    }
}
