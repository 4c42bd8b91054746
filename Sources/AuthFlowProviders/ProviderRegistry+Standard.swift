public import AuthFlow
import AuthFlowApple
import AuthFlowDiscord
import AuthFlowFacebook
import AuthFlowGitHub
import AuthFlowGitLab
import AuthFlowGoogle
import AuthFlowLinkedIn
import AuthFlowMicrosoft
import AuthFlowOAuth2
import AuthFlowOIDC
import AuthFlowPasskeys
import AuthFlowSlack
import AuthFlowX

extension ProviderRegistry {
    /// The built-in plugins: `apple`, `google`, `facebook`, `x`, `microsoft`, `github`, `gitlab`, `linkedin`,
    /// `slack`, `discord`, `oidc` (any OpenID Connect issuer by discovery; resolve with
    /// `resolve(_:httpClient:credentials:)`), `oauth2` (a plain OAuth 2.0 provider from YAML alone) and `passkey`
    /// (WebAuthn: passkeys on the server's own routes, no provider round trip).
    ///
    /// A value: copy it and ``ProviderRegistry/register(_:)`` an application's own plugins.
    public static var standard: ProviderRegistry {
        ProviderRegistry([
            ApplePlugin(), GooglePlugin(), FacebookPlugin(), XPlugin(), OIDCPlugin(), OAuth2Plugin(), MicrosoftPlugin(),
            GitHubPlugin(), GitLabPlugin(), LinkedInPlugin(), SlackPlugin(), DiscordPlugin(), PasskeyPlugin(),
        ])
    }
}
