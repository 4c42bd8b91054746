package import AuthFlowJOSE

/// One configured provider with its plugin and every effective value worked out.
///
/// It is the single object both the sign-in flow and reports such as `authflow matrix` read: capabilities
/// after configuration, endpoints after overrides, scopes, issuer(s), redirect URI and client
/// authentication. Create it with ``ProviderRegistry/resolve(_:credentials:)``.
public struct ResolvedProvider: Sendable {
    /// The provider's name in configuration (`providers.<name>`), used in URLs such as `/auth/<name>/login`.
    public let name: String
    /// The plugin that answers to the configured `type:`.
    package let plugin: any ProviderPlugin
    /// The settings as loaded from configuration.
    public let settings: ProviderSettings
    /// How the plugin supports each capability, given these settings.
    package let capabilitySupport: [Capability: CapabilitySupport]
    /// The capabilities in effect (configured or defaulted).
    public let capabilities: Set<Capability>
    /// The client identifier.
    public let clientID: String
    /// Accepted id_token audiences: `client_id` first, then `audiences:` (duplicates removed).
    package let audiences: [String]
    /// The endpoints in effect (plugin defaults with `endpoints:` overrides applied).
    public let endpoints: ProviderEndpoints
    /// The scopes requested, in order (`openid` first when `oidc` is on).
    package let scopes: [String]
    /// The expected id_token issuer, when the provider has one.
    public let issuer: String?
    /// Every accepted `iss` value (empty without an issuer).
    package let acceptedIssuers: Set<String>
    /// The callback URL sent as `redirect_uri`.
    package let redirectURI: String
    /// How the client authenticates at the token endpoint.
    package let clientAuthentication: ClientAuthentication
    /// The plugin's description, read once here: a plugin builds it anew at every `about`, and a sign-in start
    /// asked for it five times (about 40,000 instructions of a start's 255,000, building and freeing it).
    private let described: PluginDescription

    /// The plugin's description (``ProviderPlugin/about``) as it was when the provider was resolved.
    package var about: ProviderDescription { described.about }

    /// The client ids of the provider's native apps (`native_clients`); empty when native sign-in is off.
    package var nativeClients: [String] { settings.nativeClients }

    /// Whether `POST /auth/{name}/native` is on: `native_clients` is set and the plugin supports it.
    package var acceptsNativeSignIn: Bool { !nativeClients.isEmpty && plugin.nativeSignIn != nil }

    /// This provider acting as the client `clientID` (a native app's bundle id for Apple's code exchange and
    /// the revocation of what it returned): the same settings, with `clientID` as `client_id` and as the
    /// `sub` of a minted client secret, and first among the accepted audiences.
    package func actingAs(client clientID: String) -> ResolvedProvider {
        ResolvedProvider(
            name: name, plugin: plugin, settings: settings, capabilitySupport: capabilitySupport,
            capabilities: capabilities, clientID: clientID,
            audiences: [clientID] + audiences.filter { $0 != clientID }, endpoints: endpoints,
            scopes: scopes, issuer: issuer, acceptedIssuers: acceptedIssuers, redirectURI: redirectURI,
            clientAuthentication: clientAuthentication, described: described)
    }

    /// The `type:` value.
    public var type: String { plugin.type }

    /// Whether `capability` is in effect.
    public func isEnabled(_ capability: Capability) -> Bool { capabilities.contains(capability) }

    /// OpenID Connect when `oidc` is on, plain OAuth 2.0 otherwise.
    package var signInProtocol: SignInProtocol {
        described.about.ownProtocol ?? (isEnabled(.oidc) ? .oidc : .oauth2)
    }

    /// Whether the provider signs in through OAuth (a login, a callback, tokens), not on routes of its own.
    package var usesOAuth: Bool { described.about.ownProtocol == nil }

    /// Whether the plugin keeps Apple's first-login name (``ProviderDescription/keepsUnverifiedProfile``).
    package var keepsUnverifiedProfile: Bool { described.about.keepsUnverifiedProfile }

    /// Where the identity comes from: the id_token with `oidc`, the userinfo endpoint otherwise.
    package var identitySource: IdentitySource {
        signInProtocol == .webAuthn ? .assertion : isEnabled(.oidc) ? .idToken : .userinfo
    }

    /// Whether a sign-in calls the userinfo endpoint.
    package var callsUserinfo: Bool { usesOAuth && (!isEnabled(.oidc) || plugin.fetchesUserinfoWithIDToken) }

    /// POST with `form_post`, GET otherwise.
    public var callbackMethod: CallbackMethod { isEnabled(.formPost) ? .post : .get }

    /// Provider calls per sign-in with the JWKS cached: the token exchange, plus userinfo when called, plus the
    /// pushed authorization request when `par` is in effect; none for a provider with no OAuth round trip.
    package var roundTrips: Int {
        usesOAuth ? 1 + (callsUserinfo ? 1 : 0) + (pushedAuthorizationEndpoint == nil ? 0 : 1) : 0
    }

    /// The id_token algorithms accepted: the plugin's allow-list without HMAC, narrowed by `profile: fapi2` and
    /// by `id_token_signed_response_alg`.
    package var idTokenAlgorithms: Set<JWSAlgorithm> {
        var algorithms = plugin.idTokenAlgorithms.subtracting([.hs256])
        if settings.profile == .fapi2 { algorithms.formIntersection(Self.fapi2Algorithms) }
        if let registered = settings.idTokenSignedResponseAlgorithm { algorithms.formIntersection([registered]) }
        return algorithms
    }

    /// The algorithms the FAPI 2.0 Security Profile allows (§5.4.1): PS256, ES256, EdDSA.
    package static let fapi2Algorithms: Set<JWSAlgorithm> = [.ps256, .es256, .edDSA]

    init(
        name: String, plugin: any ProviderPlugin, settings: ProviderSettings,
        capabilitySupport: [Capability: CapabilitySupport], capabilities: Set<Capability>, clientID: String,
        audiences: [String], endpoints: ProviderEndpoints, scopes: [String], issuer: String?,
        acceptedIssuers: Set<String>, redirectURI: String, clientAuthentication: ClientAuthentication,
        described: PluginDescription? = nil
    ) {
        self.name = name
        self.plugin = plugin
        self.settings = settings
        self.capabilitySupport = capabilitySupport
        self.capabilities = capabilities
        self.clientID = clientID
        self.audiences = audiences
        self.endpoints = endpoints
        self.scopes = scopes
        self.issuer = issuer
        self.acceptedIssuers = acceptedIssuers
        self.redirectURI = redirectURI
        self.clientAuthentication = clientAuthentication
        self.described = described ?? PluginDescription(plugin.about)
    }
}

/// A plugin's description, read once and shared by the copies of its ``ResolvedProvider``.
final class PluginDescription: Sendable {
    let about: ProviderDescription

    init(_ about: ProviderDescription) { self.about = about }
}
