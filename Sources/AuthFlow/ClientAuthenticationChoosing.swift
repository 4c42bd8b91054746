/// A plugin whose provider lets the client choose how it authenticates at the token endpoint, so that
/// `providers.NAME.client_auth` may pick one.
///
/// A plugin that does not conform has one method (``ProviderPlugin/clientAuthentication(capabilities:)``):
/// naming another in `client_auth` is a configuration error that lists it.
public protocol ClientAuthenticationChoosing: ProviderPlugin {
    /// The methods allowed for `settings` and the one used when `client_auth` is not set.
    func clientAuthenticationChoice(for settings: ProviderSettings, capabilities: Set<Capability>)
        -> ClientAuthenticationChoice
}

/// The client-authentication methods a provider allows and its default.
public struct ClientAuthenticationChoice: Sendable, Hashable {
    /// The methods `client_auth` may name, in order of preference.
    public let allowed: [ClientAuthentication]
    /// The method used when `client_auth` is not set; one of ``allowed``.
    public let defaultMethod: ClientAuthentication
    /// The issuer's advertised `token_endpoint_auth_methods_supported`, when the choice comes from it (named in
    /// the error for a method it does not list).
    public let advertised: [String]?

    /// Creates a choice; `defaultMethod` is added to `allowed` when missing.
    public init(allowed: [ClientAuthentication], defaultMethod: ClientAuthentication, advertised: [String]? = nil) {
        self.allowed = allowed.contains(defaultMethod) ? allowed : [defaultMethod] + allowed
        self.defaultMethod = defaultMethod
        self.advertised = advertised
    }

    /// The choice for an issuer that advertises `methods` (`nil`: it advertises none, so every method of
    /// ``ClientAuthentication/configurable`` may be named): the allowed ones are ours that it lists; the
    /// default is `preferred` when listed, else the first of ours it lists, else `preferred`.
    public static func advertised(_ methods: [String]?, preferred: ClientAuthentication) -> ClientAuthenticationChoice {
        guard let methods else {
            return ClientAuthenticationChoice(allowed: ClientAuthentication.configurable, defaultMethod: preferred)
        }
        let ours = ClientAuthentication.configurable.filter { methods.contains($0.rawValue) }
        let chosen = ours.contains(preferred) ? preferred : ours.first ?? preferred
        return ClientAuthenticationChoice(allowed: ours, defaultMethod: chosen, advertised: methods)
    }
}
