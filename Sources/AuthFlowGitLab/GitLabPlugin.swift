public import AuthFlow
import AuthFlowJOSE

/// GitLab (gitlab.com or a self-managed instance at `base_url`): OpenID Connect, PKCE on by default.
///
/// Facts (docs/providers.md, "GitLab, LinkedIn, Slack, Discord"; GitLab's discovery document and OpenID
/// Connect provider docs): the issuer is the instance URL (`https://gitlab.com`); endpoints `/oauth/authorize`,
/// `/oauth/token`, `/oauth/userinfo`, `/oauth/revoke` and keys at `/oauth/discovery/keys` (RS256);
/// `client_secret_basic` and `client_secret_post`; PKCE `plain` and `S256`; the id_token carries `sub` (the user
/// id), `email`, `email_verified` (a boolean) and `groups_direct`; refresh tokens rotate.
public struct GitLabPlugin: ProviderPlugin, PreparedPlugin {
    /// gitlab.com.
    package static let defaultBaseURL = "https://gitlab.com"

    /// The instance URL without a trailing `/`.
    package let baseURL: String

    /// Creates the plugin for the instance at `baseURL` (gitlab.com by default; `base_url` in `providers.yaml`
    /// sets it per provider).
    public init(baseURL: String = "https://gitlab.com") {
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

    /// The standard claims with `groups_direct` as the groups (`GitLabIdentity`).
    public var identity: any IdentityStrategy { GitLabIdentity() }

    /// `client_secret_basic`.
    public var tokenEndpoint: any TokenEndpointStrategy { StandardTokenEndpoint(.clientSecretBasic) }

    /// Reads the provider's `base_url` (`GitLabPreparation`).
    package var preparation: any ProviderPreparing { GitLabPreparation() }

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
}

/// The one option GitLab reads: `base_url`.
struct GitLabPreparation: ProviderPreparing {
    /// `base_url`.
    var optionKeys: Set<String> { ["base_url"] }

    /// The plugin at the provider's `base_url`.
    ///
    /// - Throws: ``ConfigurationError`` for a `base_url` that is no `https://` URL without query.
    func configured(with options: ProviderOptions) throws(ConfigurationError) -> any ProviderPlugin {
        var reading = options.reading()
        let baseURL = reading.url("base_url", allowsQuery: false)
        try reading.check()
        return GitLabPlugin(baseURL: baseURL ?? GitLabPlugin.defaultBaseURL)
    }

    /// No set-up beyond the options.
    func prepared(for settings: ProviderSettings, context: ProviderPreparation) async throws(ConfigurationError)
        -> any ProviderPlugin
    {
        try configured(with: settings.options)
    }
}

/// GitLab's identity: the standard id_token claims, with `groups_direct` as the groups.
struct GitLabIdentity: IdentityStrategy {
    /// The standard claims, with `groups_direct` as the groups.
    func identity(fromIDToken claims: JWTClaims, provider: ResolvedProvider) throws(SignInError)
        -> VerifiedIdentity
    {
        let subject = try IdentityClaims.subject(ofIDToken: claims, provider: provider)
        let groups: [String] =
            if case .array(let items)? = claims["groups_direct"] { items.compactMap(\.stringValue) } else { [] }
        return IdentityClaims.identity(fromIDToken: claims, subject: subject, provider: provider, groups: groups)
    }
}
