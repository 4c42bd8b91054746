extension ProviderRegistry {
    /// The registered types whose plugin declares `profile` (``ProviderDescription/profiles``), sorted.
    package func types(supporting profile: ProviderProfile) -> [String] {
        types.filter { plugin(forType: $0)?.about.profiles.contains(profile) == true }
    }

    /// The provider option keys some registered plugin declares (``ProviderPreparing/optionKeys``), sorted.
    package var optionKeys: [String] {
        Set(types.flatMap { plugin(forType: $0)?.declaredOptionKeys ?? [] }).sorted()
    }

    /// The registered types whose plugin signs in without an OAuth client (``ProviderDescription/ownProtocol``
    /// set: passkeys), so `client_id` is not required.
    package var typesWithoutClient: Set<String> {
        Set(types.filter { plugin(forType: $0)?.about.ownProtocol != nil })
    }
}
