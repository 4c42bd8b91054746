public import AuthFlow
import AuthFlowJOSE

/// Any OpenID Connect issuer, configured by discovery: `type: oidc` needs only `issuer`, `client_id` and
/// `client_secret`.
///
/// Everything else comes from the issuer's discovery document: endpoints, the
/// id_token algorithms (`id_token_signing_alg_values_supported` ∩ the asymmetric set; never `none` or
/// HMAC), PKCE (optional and on by default when `code_challenge_methods_supported` has `S256`; optional and
/// off otherwise, so `capabilities.pkce: true` forces it on an issuer that implements PKCE without advertising
/// it, with an advisory), client authentication (`client_auth` among the advertised
/// `token_endpoint_auth_methods_supported`; by default `client_secret_basic` when advertised or when nothing
/// is, else the first advertised of `client_secret_post` and `private_key_jwt`), and `form_post` (optional,
/// off by default, when advertised). `claims:` maps the identity (`ClaimMapping`); without it the standard
/// claims are read, `groups` included when it is an array of strings. `iss` must equal the
/// configured issuer exactly and the nonce is always required. When the issuer advertises a userinfo
/// endpoint, it is called after the id_token is verified (OpenID Connect Core §5.4 returns the `email` and
/// `profile` claims there in the code flow); its `sub` must equal the id_token's, and the id_token's values
/// take precedence.
///
/// **Discovery is an explicit asynchronous step.** The plugin registered in `ProviderRegistry.standard` is
/// *undiscovered*: resolving a `type: oidc` provider with the synchronous
/// `ProviderRegistry.resolve(_:credentials:)` reports `discovery_required`. Resolve with
/// `ProviderRegistry.resolve(_:httpClient:credentials:)` (or `SignInServer(resolving:registry:stores:httpClient:)`)
/// instead: it fetches each issuer's document once and resolves the provider against a copy of this plugin that
/// carries the issuer's metadata. Sign-ins then need no discovery I/O.
public struct OIDCPlugin: ProviderPlugin, PreparedPlugin, AdvisingPlugin {
    /// Whether a sign-in also calls the issuer's userinfo endpoint.
    package enum UserinfoPolicy: Sendable, Hashable {
        /// Call it when the discovery document names one.
        case whenAdvertised
        /// Never: the identity comes from the id_token alone.
        case never
    }

    /// The issue code reported when a provider of this type is resolved without its discovery document.
    package static let discoveryRequired = ConfigurationIssue.Code.discoveryRequired
    /// The issue code reported when discovery fails during `ProviderRegistry.resolve(_:discovery:credentials:)`.
    package static let discoveryFailed = ConfigurationIssue.Code(rawValue: "discovery_failed")

    /// The `type:` this plugin answers to (`"oidc"` unless an application registers another).
    package let type: String
    /// The issuer's metadata; `nil` until discovered.
    package let metadata: OIDCProviderMetadata?
    /// Whether sign-ins call the userinfo endpoint.
    package let userinfoPolicy: UserinfoPolicy

    /// Creates the undiscovered plugin of `type: oidc`, which calls an issuer's userinfo endpoint when its
    /// discovery document names one.
    public init() {
        self.init(type: "oidc")
    }

    /// Creates an undiscovered plugin for `type`.
    package init(type: String, userinfo: UserinfoPolicy = .whenAdvertised) {
        self.type = type
        self.metadata = nil
        self.userinfoPolicy = userinfo
    }

    /// Creates a plugin that already carries an issuer's metadata.
    package init(type: String = "oidc", metadata: OIDCProviderMetadata, userinfo: UserinfoPolicy = .whenAdvertised) {
        self.type = type
        self.metadata = metadata
        self.userinfoPolicy = userinfo
    }

    /// This plugin (same type and userinfo policy) with `metadata`.
    package func discovered(_ metadata: OIDCProviderMetadata) -> OIDCPlugin {
        OIDCPlugin(type: type, metadata: metadata, userinfo: userinfoPolicy)
    }

    /// The discovered endpoints, issuer and advertised asymmetric algorithms (none before discovery); `email
    /// profile`, keeping only those in `scopes_supported` when the issuer lists it; the nonce always required;
    /// the `offline_access` scope for a refresh token (OpenID Connect Core §11); userinfo also fetched when the
    /// policy is `UserinfoPolicy.whenAdvertised` and the issuer has a userinfo endpoint; RFC 9207 `iss` as
    /// the issuer advertises (`authorization_response_iss_parameter_supported`); pushed authorization requests
    /// (RFC 9126) at the advertised `pushed_authorization_request_endpoint`, demanded when the issuer sets
    /// `require_pushed_authorization_requests`; signed request objects (RFC 9101) when the issuer sets
    /// `require_signed_request_object`; `claims:` mapping. Native
    /// sign-in: a native app's token names the app's own client id (one of `native_clients`) as `aud`.
    public var about: ProviderDescription {
        let wanted = ["email", "profile"]
        var description = ProviderDescription(
            type: type, displayName: "OpenID Connect", endpoints: discoveredEndpoints, issuer: metadata?.issuer,
            scopes: metadata?.scopes.map { supported in wanted.filter(supported.contains) } ?? wanted,
            idTokenAlgorithms: metadata?.idTokenAlgorithms ?? [], refreshTokenRequest: .scope("offline_access"),
            fetchesUserinfoWithIDToken: userinfoPolicy == .whenAdvertised && metadata?.userinfoEndpoint != nil)
        description.sendsIssuerInAuthorizationResponse = metadata?.issuerInAuthorizationResponse ?? false
        description.supportsClaimMapping = true
        description.nativeSignIn = NativeSignInDescription(audience: .nativeClient)
        description.requiresPushedAuthorizationRequests = metadata?.requiresPushedAuthorizationRequests ?? false
        description.requiresSignedRequestObject = metadata?.requiresSignedRequestObject ?? false
        description.dpopSigningAlgorithms = metadata?.dpopSigningAlgorithms
        description.profiles = [.fapi2]
        return description
    }

    private var discoveredEndpoints: ProviderEndpoints {
        guard let metadata else { return ProviderEndpoints() }
        var endpoints = ProviderEndpoints(
            authorization: metadata.authorizationEndpoint, token: metadata.tokenEndpoint,
            userinfo: metadata.userinfoEndpoint, jwks: metadata.jwksURI, revocation: metadata.revocationEndpoint,
            endSession: metadata.endSessionEndpoint)
        endpoints.pushedAuthorizationRequest = metadata.pushedAuthorizationRequestEndpoint
        return endpoints
    }

    /// The `claims:` mapping (`OIDCIdentity`).
    public var identity: any IdentityStrategy { OIDCIdentity() }

    /// The advertised client-authentication methods (`OIDCTokenEndpoint`).
    public var tokenEndpoint: any TokenEndpointStrategy { OIDCTokenEndpoint(metadata: metadata) }

    /// Discovery (`OIDCPreparation`, `OIDCPlugin+Preparation.swift`).
    package var preparation: any ProviderPreparing { OIDCPreparation(plugin: self) }

    /// Back-channel and front-channel logout, as the issuer advertises them (`OIDCLogout`).
    public var events: (any ProviderEventHandling)? { OIDCLogout(metadata: metadata) }

    /// oidc required; pkce optional (on when the issuer advertises S256, off otherwise); form_post optional
    /// (off) when it advertises `form_post`; jwt_client_auth unsupported (`client_auth: private_key_jwt` signs
    /// with the client's own key instead).
    public func support(for capability: Capability, settings: ProviderSettings) -> CapabilitySupport {
        switch capability {
        case .oidc:
            return .required
        case .pkce:
            guard let metadata else { return .optional(default: true) }
            return .optional(default: metadata.supportsPKCE)
        case .jwtClientAuth:
            return .unsupported(
                reason: "this capability is Apple's ES256 client secret; an OpenID Connect client signs its own "
                    + "assertions with client_auth: private_key_jwt")
        case .formPost:
            guard let metadata else { return .optional(default: false) }
            return metadata.supportsFormPost
                ? .optional(default: false)
                : .unsupported(
                    reason: "the issuer's discovery document does not list form_post in response_modes_supported")
        }
    }

    /// PKCE forced on an issuer whose discovery document does not list S256.
    package func advice(for provider: ResolvedProvider) -> [ProviderAdvice] {
        guard let metadata, !metadata.supportsPKCE, provider.isEnabled(.pkce) else { return [] }
        return [
            ProviderAdvice(
                code: "pkce_not_advertised",
                finding: "PKCE is on although the issuer's discovery document does not list S256 in "
                    + "code_challenge_methods_supported — sign-ins fail if the issuer does not implement it",
                change: "keep capabilities.pkce: true only if the issuer checks code_verifier (try a sign-in)")
        ]
    }

    /// Refuses an undiscovered plugin (`discovery_required`) and metadata of another issuer.
    public func validate(_ settings: ProviderSettings, capabilities: Set<Capability>) -> [ConfigurationIssue] {
        let subject = "provider '\(settings.name)' (type \(type))"
        guard let metadata else {
            return [
                ConfigurationIssue(
                    code: Self.discoveryRequired,
                    message: "\(subject) takes its endpoints from the issuer's discovery document; resolve the "
                        + "configuration with SignInServer(resolving:registry:stores:httpClient:) or "
                        + "ProviderRegistry.resolve(_:httpClient:) at startup",
                    location: settings.location(of: "issuer"))
            ]
        }
        guard let issuer = settings.issuer, issuer == metadata.issuer else {
            return [
                ConfigurationIssue(
                    code: .invalidValue,
                    message: "\(subject): expected the discovered metadata of the configured issuer, found the "
                        + "metadata of '\(metadata.issuer)'",
                    location: settings.location(of: "issuer"))
            ]
        }
        return []
    }
}

/// A discovered issuer's token endpoint: the client-authentication methods it advertises.
struct OIDCTokenEndpoint: RequiredSettingsDeclaring {
    /// The issuer's metadata; `nil` before discovery.
    let metadata: OIDCProviderMetadata?

    /// The default of `choice(for:capabilities:)`.
    func method(capabilities: Set<Capability>) -> ClientAuthentication {
        metadata?.clientAuthentication ?? .clientSecretBasic
    }

    /// The advertised `token_endpoint_auth_methods_supported` among ours (all of ours when nothing is
    /// advertised), `client_secret_basic` preferred as the default.
    func choice(for settings: ProviderSettings, capabilities: Set<Capability>)
        -> ClientAuthenticationChoice?
    {
        metadata?.clientAuthenticationChoice ?? .advertised(nil, preferred: .clientSecretBasic)
    }

    /// `client_secret` and `issuer`.
    func requiredSettings(capabilities: Set<Capability>) -> [ProviderSettingKey] {
        [.clientSecret, .issuer]
    }
}

/// An OpenID Connect issuer's identity: the id_token and userinfo claims through `claims:`.
struct OIDCIdentity: IdentityStrategy {
    /// The id_token claims through `claims:` (the standard claims without it).
    func identity(fromIDToken claims: JWTClaims, provider: ResolvedProvider) throws(SignInError)
        -> VerifiedIdentity
    {
        try (provider.settings.claims ?? .standard).identity(
            from: claims.json, provider: provider.name, source: .idToken)
    }

    /// The userinfo members through `claims:`, except the subject: userinfo's `sub` must equal the id_token's
    /// (OpenID Connect Core §5.3.2), whatever claim the id_token's subject is mapped from.
    func identity(fromUserinfo responses: [JSONValue], provider: ResolvedProvider) throws(SignInError)
        -> VerifiedIdentity
    {
        var mapping = provider.settings.claims ?? .standard
        mapping.subject = nil
        return try mapping.identity(fromUserinfo: responses, provider: provider.name)
    }
}
