public import AuthFlow

/// LinkedIn ("Sign In with LinkedIn using OpenID Connect"): OpenID Connect without PKCE or an echoed nonce.
///
/// Facts (docs/providers.md, "GitLab, LinkedIn, Slack, Discord"; LinkedIn's documentation and developer
/// reports): issuer `https://www.linkedin.com/oauth`; authorization
/// `https://www.linkedin.com/oauth/v2/authorization`, token `https://www.linkedin.com/oauth/v2/accessToken` with
/// `client_secret_post`, userinfo `https://api.linkedin.com/v2/userinfo`, keys
/// `https://www.linkedin.com/oauth/openid/jwks`; RS256; `sub` is pairwise. PKCE is for native apps by arrangement
/// only: a web app sending `code_verifier` is refused `invalid_client`. The id_token carries no `nonce` (the
/// state and the browser binding protect the callback). `email_verified` arrives as the string `"true"`. Refresh
/// tokens go to selected partners only.
public struct LinkedInPlugin: ProviderPlugin {
    /// Creates the plugin.
    public init() {}

    /// LinkedIn's authorization, token, userinfo and keys endpoints; the issuer `https://www.linkedin.com/oauth`;
    /// `profile email`; the nonce not echoed (LinkedIn's id_token has no `nonce`).
    public var about: ProviderDescription {
        ProviderDescription(
            type: "linkedin", displayName: "LinkedIn",
            endpoints: ProviderEndpoints(
                authorization: "https://www.linkedin.com/oauth/v2/authorization",
                token: "https://www.linkedin.com/oauth/v2/accessToken",
                userinfo: "https://api.linkedin.com/v2/userinfo", jwks: "https://www.linkedin.com/oauth/openid/jwks"),
            issuer: "https://www.linkedin.com/oauth", scopes: ["profile", "email"], noncePolicy: .notEchoed)
    }

    /// `client_secret_post`.
    public var tokenEndpoint: any TokenEndpointStrategy { StandardTokenEndpoint(.clientSecretPost) }

    /// oidc required; pkce, jwt_client_auth and form_post unsupported.
    public func support(for capability: Capability, settings: ProviderSettings) -> CapabilitySupport {
        switch capability {
        case .oidc: .required
        case .pkce:
            .unsupported(
                reason: "LinkedIn accepts PKCE only from native apps it enabled; a web app's code_verifier is "
                    + "refused invalid_client")
        case .jwtClientAuth: .unsupported(reason: "LinkedIn authenticates clients with client_secret_post")
        case .formPost: .unsupported(reason: "LinkedIn returns the code as a query-string (GET) callback")
        }
    }

}
