package import AuthFlowJOSE

/// One entry of `providers:`, as written (and interpolated); not yet checked against its plugin.
///
/// The core resolves it against the provider plugin named by ``type`` and reports problems (unknown
/// type, unsupported capability) at the locations kept here.
public struct ProviderSettings: Sendable, Hashable {
    /// The name under `providers:`, used in URLs (`/auth/{name}/login`); `[a-z0-9_-]`.
    public let name: String
    /// Which plugin (`apple`, `google`, `facebook`, `x`, `oidc`, or an application's own); defaults to ``name``.
    public let type: String
    /// `client_id`. Optional here because a plugin might not need one; every built-in does.
    public let clientID: String?
    /// `client_secret`, or the trimmed contents of `client_secret_file`.
    public let clientSecret: Secret?
    /// `audiences`: extra accepted id_token audiences (native app bundle IDs); default empty.
    package let audiences: [String]
    /// `native_clients`: the client ids of the provider's native apps (Apple bundle ids, Google Android/iOS
    /// client ids, the Facebook app id); non-empty enables `POST /auth/{name}/native`. Default empty.
    package let nativeClients: [String]
    /// `team_id` (Apple).
    package let teamID: String?
    /// `key_id` (Apple).
    package let keyID: String?
    /// The PEM text of `private_key_file` (Apple's `.p8`).
    package let privateKey: Secret?
    /// `scopes`; `nil` keeps the plugin's defaults.
    public let scopes: [String]?
    /// `capabilities`: `pkce`, `oidc`, `jwt_client_auth`, `form_post` → requested on/off. Absent ones
    /// keep the plugin's default.
    package let capabilities: [String: Bool]
    /// `redirect_uri`; when absent and `server.public_url` is set, `{public_url}/auth/{name}/callback`.
    package let redirectURI: String?
    /// `post_logout_redirect_uri`: where the provider sends the browser after a provider logout; when absent,
    /// `{public_url}{path_prefix}/logged-out`. Register it with the provider.
    package let postLogoutRedirectURI: String?
    /// `issuer`: the expected `iss` of id_tokens (and the discovery base for `type: oidc`).
    public let issuer: String?
    /// `endpoints`: overrides of the plugin's default URLs.
    package let endpoints: ProviderEndpoints
    /// `authorization_params`: extra parameters of the authorization request, e.g. Google's
    /// `access_type: offline` for a refresh token. Never one AuthFlow sets itself
    /// (`state`, `nonce`, `scope`, `code_challenge`, …); the loader refuses those.
    package let authorizationParameters: [String: String]
    /// `client_auth`: how the client authenticates at the token endpoint; `nil` keeps the plugin's default
    /// (or the issuer's advertised choice).
    package let clientAuthentication: ClientAuthentication?
    /// `claims`: where the identity's members come from; `nil` keeps the plugin's own mapping.
    package let claims: ClaimMapping?
    /// The keys only some provider types read (`tenant`, `allowed_tenants`, `allow_any_tenant`, `base_url`).
    package var options = ProviderOptions()
    /// `par`: whether sign-ins push their authorization request first (RFC 9126); `auto` by default.
    package var pushedAuthorization = PushedAuthorizationMode.auto
    /// `request_object`: whether the authorization request is a signed request object (RFC 9101); `auto` by
    /// default.
    package var requestObject = RequestObjectMode.auto
    /// `dpop`: whether tokens are bound to a proof-of-possession key (RFC 9449); `auto` by default.
    package var dpop = DPoPMode.auto
    /// `profile`: a security profile (`fapi2`) whose requirements apply together; `none` by default.
    package var profile = ProviderProfile.none
    /// `id_token_signed_response_alg`: the one algorithm id_tokens (and logout tokens, verified like them) must
    /// be signed with, as the client registered it; `nil` accepts every algorithm the issuer advertises.
    package var idTokenSignedResponseAlgorithm: JWSAlgorithm?
    /// Where the provider's name is written.
    public let location: SourceLocation
    /// Where the `type` value is written; `nil` when `type` was left out.
    package let typeLocation: SourceLocation?
    /// Where each capability key is written, by capability name.
    package let capabilityLocations: [String: SourceLocation]
    /// Where each key is written, by its YAML name; nested keys are dotted (`endpoints.token`,
    /// `capabilities.pkce`).
    package let keyLocations: [String: SourceLocation]

    /// Creates provider settings (the loader does this; tests and applications may too).
    public init(
        name: String, type: String, clientID: String? = nil, clientSecret: Secret? = nil, audiences: [String] = [],
        teamID: String? = nil, keyID: String? = nil, privateKey: Secret? = nil, scopes: [String]? = nil,
        capabilities: [String: Bool] = [:], redirectURI: String? = nil, issuer: String? = nil,
        endpoints: ProviderEndpoints = ProviderEndpoints(), authorizationParameters: [String: String] = [:],
        location: SourceLocation,
        typeLocation: SourceLocation? = nil, capabilityLocations: [String: SourceLocation] = [:],
        keyLocations: [String: SourceLocation] = [:], nativeClients: [String] = [],
        postLogoutRedirectURI: String? = nil, clientAuthentication: ClientAuthentication? = nil,
        claims: ClaimMapping? = nil
    ) {
        self.postLogoutRedirectURI = postLogoutRedirectURI
        self.nativeClients = nativeClients
        self.clientAuthentication = clientAuthentication
        self.claims = claims
        self.name = name
        self.type = type
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.audiences = audiences
        self.teamID = teamID
        self.keyID = keyID
        self.privateKey = privateKey
        self.scopes = scopes
        self.capabilities = capabilities
        self.redirectURI = redirectURI
        self.issuer = issuer
        self.endpoints = endpoints
        self.authorizationParameters = authorizationParameters
        self.location = location
        self.typeLocation = typeLocation
        self.capabilityLocations = capabilityLocations
        self.keyLocations = keyLocations
    }

    /// ``redirectURI`` when set, otherwise `{publicURL}{pathPrefix}/{name}/callback` (a trailing `/` of
    /// `publicURL` is dropped; `pathPrefix` is `server.path_prefix`, `/auth` by default).
    package func redirectURI(publicURL: String, pathPrefix: String = Configuration.defaultPathPrefix) -> String {
        if let redirectURI { return redirectURI }
        var base = Substring(publicURL)
        while base.hasSuffix("/") { base = base.dropLast() }
        return "\(base)\(pathPrefix)/\(name)/callback"
    }

    /// The location of `key` (see ``keyLocations``), or of the provider's name when the key is absent.
    package func location(of key: String) -> SourceLocation {
        keyLocations[key] ?? location
    }
}
