public import AuthFlowHTTP
package import Foundation

/// How the client talks to a provider's token and revocation endpoints: how it authenticates (and which
/// methods `client_auth` may pick) and the provider's revocation request when it is not the standard one. Only
/// ``method(capabilities:)`` has no default; ``StandardTokenEndpoint`` is the common case.
public protocol TokenEndpointStrategy: Sendable {
    /// How the client authenticates at the token endpoint, given the enabled capabilities.
    func method(capabilities: Set<Capability>) -> ClientAuthentication

    /// The methods `providers.NAME.client_auth` may pick for `settings` and the default; `nil` (the default)
    /// allows only ``method(capabilities:)``, and naming another is a configuration error that lists it.
    func choice(for settings: ProviderSettings, capabilities: Set<Capability>) -> ClientAuthenticationChoice?

    /// The request that revokes `token`, for a provider whose revocation is not RFC 7009 (GitHub deletes the
    /// grant); `nil`, the default, sends the RFC 7009 form.
    func revocationRequest(for provider: ResolvedProvider, token: String) -> HTTPClientRequest?
}

extension TokenEndpointStrategy {
    /// Only ``method(capabilities:)``.
    public func choice(for settings: ProviderSettings, capabilities: Set<Capability>) -> ClientAuthenticationChoice? {
        nil
    }

    /// None: revocation is RFC 7009.
    public func revocationRequest(for provider: ResolvedProvider, token: String) -> HTTPClientRequest? { nil }
}

/// A built-in token endpoint that requires settings besides `client_id` other than the default (`client_secret`,
/// unless the client authenticates with a signed JWT): Apple's `team_id`, `key_id` and key, OpenID Connect's
/// `issuer`. Asked for with `as?`.
package protocol RequiredSettingsDeclaring: TokenEndpointStrategy {
    /// Settings keys that must be present, given the enabled capabilities (`client_id` is always required).
    func requiredSettings(capabilities: Set<Capability>) -> [ProviderSettingKey]
}

/// A built-in token endpoint that mints the signed client secret of
/// ``ClientAuthentication/es256ClientSecretJWT`` (Apple). Asked for with `as?`.
package protocol ClientSecretMinting: TokenEndpointStrategy {
    /// Mints the signed client secret, valid for `lifetime` seconds from `now`.
    ///
    /// - Throws: ``SignInError`` with code `client_authentication_failed`.
    func clientSecretJWT(for provider: ResolvedProvider, now: Date, lifetime: Int64) throws(SignInError) -> String
}

/// A built-in token endpoint that trades a short-lived access token for a long-lived one, for a provider without
/// refresh tokens (Facebook: `grant_type=fb_exchange_token`). Asked for with `as?`.
package protocol LongLivedTokenExchanging: TokenEndpointStrategy {
    /// The token-endpoint parameters of the exchange; `nil` when there is none. The client authenticates as at
    /// the code exchange.
    func longLivedTokenParameters(accessToken: String) -> [(String, String)]?
}

extension TokenEndpointStrategy {
    /// The settings keys that must be present (``RequiredSettingsDeclaring``); by default `client_secret`, unless
    /// the client authenticates with a signed JWT.
    package func requiredSettingKeys(capabilities: Set<Capability>) -> [ProviderSettingKey] {
        if let declaring = self as? any RequiredSettingsDeclaring {
            return declaring.requiredSettings(capabilities: capabilities)
        }
        return method(capabilities: capabilities) == .es256ClientSecretJWT ? [] : [.clientSecret]
    }

    /// The signed client secret (``ClientSecretMinting``); refused for a strategy that mints none.
    ///
    /// - Throws: ``SignInError`` with code `client_authentication_failed`.
    package func mintedClientSecret(for provider: ResolvedProvider, now: Date, lifetime: Int64) throws(SignInError)
        -> String
    {
        guard let minting = self as? any ClientSecretMinting else {
            throw SignInError(
                .clientAuthenticationFailed,
                "provider type \(provider.type) does not mint a signed client secret (expected a token endpoint "
                    + "strategy that implements clientSecretJWT(for:now:lifetime:))",
                provider: provider.name)
        }
        return try minting.clientSecretJWT(for: provider, now: now, lifetime: lifetime)
    }

    /// The long-lived-token exchange's parameters (``LongLivedTokenExchanging``); `nil` without one.
    package func longLivedExchangeParameters(accessToken: String) -> [(String, String)]? {
        (self as? any LongLivedTokenExchanging)?.longLivedTokenParameters(accessToken: accessToken)
    }
}

/// The common token endpoint: one client-authentication method, or a choice of methods, and the standard
/// requests.
public struct StandardTokenEndpoint: TokenEndpointStrategy {
    private let fixed: ClientAuthentication
    private let allowed: ClientAuthenticationChoice?

    /// Authenticates with `method`; with `choice`, `client_auth` may pick any of its methods.
    public init(_ method: ClientAuthentication, choice: ClientAuthenticationChoice? = nil) {
        self.fixed = method
        self.allowed = choice
    }

    /// The method given, or the choice's default.
    public func method(capabilities: Set<Capability>) -> ClientAuthentication { allowed?.defaultMethod ?? fixed }

    /// The choice given, if any.
    public func choice(for settings: ProviderSettings, capabilities: Set<Capability>) -> ClientAuthenticationChoice? {
        allowed
    }
}

/// The client-authentication methods a provider allows and its default.
public struct ClientAuthenticationChoice: Sendable, Hashable {
    /// The methods `client_auth` may name, in order of preference.
    package let allowed: [ClientAuthentication]
    /// The method used when `client_auth` is not set; one of ``allowed``.
    package let defaultMethod: ClientAuthentication
    /// The issuer's advertised `token_endpoint_auth_methods_supported`, when the choice comes from it (named in
    /// the error for a method it does not list).
    package let advertised: [String]?

    /// Creates a choice; `defaultMethod` is added to `allowed` when missing.
    public init(allowed: [ClientAuthentication], defaultMethod: ClientAuthentication, advertised: [String]? = nil) {
        self.allowed = allowed.contains(defaultMethod) ? allowed : [defaultMethod] + allowed
        self.defaultMethod = defaultMethod
        self.advertised = advertised
    }

    /// The choice for an issuer that advertises `methods` (`nil`: it advertises none, so every method of
    /// ``ClientAuthentication/configurable`` may be named): the allowed ones are ours that it lists; the
    /// default is `preferred` when listed, else the first of ours it lists, else `preferred`.
    package static func advertised(_ methods: [String]?, preferred: ClientAuthentication) -> ClientAuthenticationChoice
    {
        guard let methods else {
            return ClientAuthenticationChoice(allowed: ClientAuthentication.configurable, defaultMethod: preferred)
        }
        let ours = ClientAuthentication.configurable.filter { methods.contains($0.rawValue) }
        let chosen = ours.contains(preferred) ? preferred : ours.first ?? preferred
        return ClientAuthenticationChoice(allowed: ours, defaultMethod: chosen, advertised: methods)
    }
}
