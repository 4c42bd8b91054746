public import AuthFlow
public import AuthFlowJOSE

/// GitLab (gitlab.com or a self-managed instance at `base_url`): OpenID Connect, PKCE on by default.
///
/// Facts (docs/providers.md, "GitLab, LinkedIn, Slack, Discord"; GitLab's discovery document and OpenID
/// Connect provider docs): the issuer is the instance URL (`https://gitlab.com`); endpoints `/oauth/authorize`,
/// `/oauth/token`, `/oauth/userinfo`, `/oauth/revoke` and keys at `/oauth/discovery/keys` (RS256);
/// `client_secret_basic` and `client_secret_post`; PKCE `plain` and `S256`; the id_token carries `sub` (the user
/// id), `email`, `email_verified` (a boolean) and `groups_direct`; refresh tokens rotate.
public struct GitLabPlugin: ProviderPlugin, IdentityStrategy, ProviderPreparing {
    /// gitlab.com.
    public static let defaultBaseURL = "https://gitlab.com"

    /// The instance URL without a trailing `/`.
    public let baseURL: String

    /// Creates the plugin for the instance at `baseURL`.
    public init(baseURL: String = Self.defaultBaseURL) {
        var base = Substring(baseURL)
        while base.hasSuffix("/") { base = base.dropLast() }
        self.baseURL = String(base)
    }

    /// The instance's OAuth endpoints, the instance URL as issuer, `profile email`.
    public var about: ProviderDescription {
        ProviderDescription(
            type: "gitlab", displayName: "GitLab",
            endpoints: ProviderEndpoints(
                authorization: "\(baseURL)/oauth/authorize", token: "\(baseURL)/oauth/token",
                userinfo: "\(baseURL)/oauth/userinfo", jwks: "\(baseURL)/oauth/discovery/keys",
                revocation: "\(baseURL)/oauth/revoke"),
            issuer: baseURL, scopes: ["profile", "email"])
    }

    /// The plugin itself: `groups_direct` as the groups.
    public var identity: any IdentityStrategy { self }

    /// `client_secret_basic`.
    public var tokenEndpoint: any TokenEndpointStrategy { StandardTokenEndpoint(.clientSecretBasic) }

    /// The plugin itself: `base_url`.
    public var preparation: (any ProviderPreparing)? { self }

    /// `base_url`.
    public var optionKeys: Set<String> { ["base_url"] }

    /// This plugin at the provider's `base_url`.
    public func configured(with options: ProviderOptions) -> any ProviderPlugin {
        GitLabPlugin(baseURL: options.baseURL ?? Self.defaultBaseURL)
    }

    /// oidc required; pkce optional (on); jwt_client_auth and form_post unsupported.
    public func support(for capability: Capability, settings: ProviderSettings) -> CapabilitySupport {
        switch capability {
        case .oidc: .required
        case .pkce: .optional(default: true)
        case .jwtClientAuth:
            .unsupported(reason: "GitLab authenticates clients with client_secret_basic or client_secret_post")
        case .formPost:
            .unsupported(reason: "AuthFlow receives GitLab's authorization code as a query-string (GET) callback")
        }
    }

    /// The standard claims, with `groups_direct` as the groups.
    public func identity(fromIDToken claims: JWTClaims, provider: ResolvedProvider) throws(SignInError)
        -> VerifiedIdentity
    {
        let subject = try IdentityClaims.subject(ofIDToken: claims, provider: provider)
        let groups: [String] =
            if case .array(let items)? = claims["groups_direct"] { items.compactMap(\.stringValue) } else { [] }
        return IdentityClaims.identity(fromIDToken: claims, subject: subject, provider: provider, groups: groups)
    }
}
