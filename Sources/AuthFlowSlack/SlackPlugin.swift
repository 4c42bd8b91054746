public import AuthFlow
import AuthFlowJOSE

/// Slack ("Sign in with Slack"): OpenID Connect, a user keyed by workspace.
///
/// Facts (docs/providers.md, "GitLab, LinkedIn, Slack, Discord"; Slack's discovery document and method references):
/// issuer `https://slack.com`; authorization `https://slack.com/openid/connect/authorize` (not `/oauth/v2/authorize`),
/// token `https://slack.com/api/openid.connect.token`, userinfo `https://slack.com/api/openid.connect.userInfo`, keys
/// `https://slack.com/openid/connect/keys` (RS256); `client_secret_post` and `client_secret_basic`; discovery lists no
/// PKCE (its 2026 support is documented for app installs, not verified for this flow). A Slack identity is a user in a
/// workspace: the subject is `{team_id}:{sub}` from the claim `https://slack.com/team_id`; `email_verified` is a
/// boolean.
public struct SlackPlugin: ProviderPlugin {
    /// The claim naming the user's workspace.
    package static let teamClaim = "https://slack.com/team_id"

    /// Creates the plugin.
    public init() {}

    /// Slack's OpenID Connect endpoints, the issuer `https://slack.com`, `profile email`.
    public var about: ProviderDescription {
        ProviderDescription(
            type: "slack", displayName: "Slack",
            endpoints: ProviderEndpoints(
                authorization: "https://slack.com/openid/connect/authorize",
                token: "https://slack.com/api/openid.connect.token",
                userinfo: "https://slack.com/api/openid.connect.userInfo",
                jwks: "https://slack.com/openid/connect/keys"),
            issuer: "https://slack.com", scopes: ["profile", "email"])
    }

    /// The workspace-qualified subject (`SlackIdentity`).
    public var identity: any IdentityStrategy { SlackIdentity() }

    /// `client_secret_post`.
    public var tokenEndpoint: any TokenEndpointStrategy { StandardTokenEndpoint(.clientSecretPost) }

    /// oidc required; pkce optional (off); jwt_client_auth and form_post unsupported.
    public func support(for capability: Capability, settings: ProviderSettings) -> CapabilitySupport {
        switch capability {
        case .oidc: .required
        case .pkce: .optional(default: false)
        case .jwtClientAuth:
            .unsupported(reason: "Slack authenticates clients with client_secret_post or client_secret_basic")
        case .formPost: .unsupported(reason: "Slack's discovery lists only the query response mode")
        }
    }
}

/// Slack's identity: a user in a workspace.
struct SlackIdentity: IdentityStrategy {
    /// `{team_id}:{sub}` as subject, `email` and `email_verified`, the name.
    ///
    /// - Throws: `SignInError` `id_token_invalid` when `sub` or the workspace claim is missing.
    func identity(fromIDToken claims: JWTClaims, provider: ResolvedProvider) throws(SignInError)
        -> VerifiedIdentity
    {
        let subject = try IdentityClaims.subject(ofIDToken: claims, provider: provider)
        guard let team = claims.string(SlackPlugin.teamClaim), !team.isEmpty else {
            throw SignInError(
                .idTokenInvalid,
                "expected the workspace in the id_token's '\(SlackPlugin.teamClaim)' claim, found none",
                provider: provider.name, joseCode: .missingClaim, claim: SlackPlugin.teamClaim)
        }
        return IdentityClaims.identity(fromIDToken: claims, subject: "\(team):\(subject)", provider: provider)
    }
}
