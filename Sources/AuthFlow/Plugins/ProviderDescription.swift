public import AuthFlowJOSE

/// What one kind of provider (a `type:` in `providers.yaml`) is: its name, endpoints, issuer, defaults and the
/// ways its flow departs from the common one. A value; the behaviour a plugin adds lives in its strategies
/// (``ProviderPlugin/identity``, ``ProviderPlugin/tokenEndpoint``, ``ProviderPlugin/events``).
public struct ProviderDescription: Sendable {
    /// The `type:` value the plugin answers to, e.g. `"apple"`.
    public var type: String
    /// A human-readable provider name for messages and reports, e.g. `"Apple"`.
    public var displayName: String
    /// The provider's endpoints before `endpoints:` overrides.
    public var endpoints: ProviderEndpoints
    /// The expected id_token issuer when configuration sets no `issuer:`.
    public var issuer: String?
    /// Other spellings of ``issuer`` that tokens may carry, accepted when the configured issuer is ``issuer``
    /// (Google: `accounts.google.com`).
    package var issuerAliases: Set<String>
    /// The placeholder that makes a configured issuer a template, for a provider whose tokens name their own
    /// tenant in `iss` (Microsoft's `{tenantid}`), and the claim that fills it (`tid`); `nil` compares `iss`
    /// exactly.
    package var issuerPlaceholder: (placeholder: String, claim: String)?
    /// Scopes requested when configuration sets no `scopes:` (`openid` is added when `oidc` is on).
    public var scopes: [String]
    /// The id_token signature algorithms accepted (HMAC and `none` are always refused).
    package var idTokenAlgorithms: Set<JWSAlgorithm>
    /// How the id_token must carry the nonce.
    package var noncePolicy: NoncePolicy
    /// When the plugin's identities carry a linkable email, for reports; the mapping sets the flag per sign-in.
    package var emailLinkability: EmailLinkability
    /// How the provider is asked for a refresh token (reports advise it when tokens are stored).
    package var refreshTokenRequest: RefreshTokenRequest
    /// Extra authorization-request parameters (never overriding the ones the flow sets).
    package var authorizationParameters: [(String, String)]
    /// Whether an OpenID Connect sign-in also calls the userinfo endpoint (its `sub` must then match).
    package var fetchesUserinfoWithIDToken: Bool
    /// Whether the provider names itself in every authorization response with an `iss` parameter (RFC 9207),
    /// so that a callback without one is refused. An `iss` parameter that is present is checked whatever this
    /// says.
    package var sendsIssuerInAuthorizationResponse: Bool
    /// Whether the provider sends its ``UnverifiedProfile`` only once (Apple's first-login name), so the server
    /// keeps it across a failed attempt until the sign-in completes.
    package var keepsUnverifiedProfile: Bool
    /// Whether `claims:` may map the identity (the generic `oidc` and `oauth2` types).
    package var supportsClaimMapping: Bool
    /// How native apps' ID tokens are verified; `nil` when the provider issues none (`native_clients` is then
    /// refused).
    package var nativeSignIn: NativeSignInDescription?
    /// Whether the provider accepts authorization requests only when pushed (RFC 9126 §5,
    /// `require_pushed_authorization_requests`), so `par: off` is a configuration error.
    package var requiresPushedAuthorizationRequests = false
    /// Whether the provider accepts only signed request objects (RFC 9101 §10.5,
    /// `require_signed_request_object`), so `request_object` is in effect whatever it says.
    package var requiresSignedRequestObject = false
    /// The DPoP proof algorithms the provider advertises (RFC 9449 §5.1, `dpop_signing_alg_values_supported`);
    /// `nil` when it advertises none, so `dpop: auto` stays off.
    package var dpopSigningAlgorithms: [String]? = nil
    /// The protocol when it is not OAuth: `.webAuthn` for a provider with its own routes and no OAuth round trip
    /// (passkeys), which needs no client, endpoints or redirect URI. `nil`, the default: OAuth 2.0, or OpenID
    /// Connect when the `oidc` capability is on.
    package var ownProtocol: SignInProtocol? = nil
    /// The security profiles (`profile:`) the provider can be configured for; `profile:` naming another is a
    /// configuration error. The generic OpenID Connect plugin declares `fapi2`.
    package var profiles: Set<ProviderProfile> = []
    /// Whether `key_id` names the X.509 certificate registered for the `private_key_jwt` key by its thumbprint
    /// (hex, as Microsoft Entra shows it): the assertion then carries it as `x5t` (a 40-digit SHA-1 thumbprint)
    /// or `x5t#S256` (64 digits, SHA-256), base64url-encoded, instead of `kid`, and an `nbf` claim
    /// (docs/providers.md, "Microsoft").
    package var certificateThumbprintKeyID = false

    /// Describes a provider; everything but the type and endpoints has the common default. The built-in plugins
    /// set the package members (issuer aliases and templates, RFC 9207, native sign-in, claim mapping …) on the
    /// value this returns.
    public init(
        type: String, displayName: String? = nil, endpoints: ProviderEndpoints, issuer: String? = nil,
        scopes: [String] = [], idTokenAlgorithms: Set<JWSAlgorithm> = [.rs256], noncePolicy: NoncePolicy = .required,
        emailLinkability: EmailLinkability = .whenVerified(by: "email_verified"),
        refreshTokenRequest: RefreshTokenRequest = .none, authorizationParameters: [(String, String)] = [],
        fetchesUserinfoWithIDToken: Bool = false
    ) {
        self.type = type
        self.displayName = displayName ?? type
        self.endpoints = endpoints
        self.issuer = issuer
        self.issuerAliases = []
        self.issuerPlaceholder = nil
        self.scopes = scopes
        self.idTokenAlgorithms = idTokenAlgorithms
        self.noncePolicy = noncePolicy
        self.emailLinkability = emailLinkability
        self.refreshTokenRequest = refreshTokenRequest
        self.authorizationParameters = authorizationParameters
        self.fetchesUserinfoWithIDToken = fetchesUserinfoWithIDToken
        self.sendsIssuerInAuthorizationResponse = false
        self.keepsUnverifiedProfile = false
        self.supportsClaimMapping = false
        self.nativeSignIn = nil
    }
}
