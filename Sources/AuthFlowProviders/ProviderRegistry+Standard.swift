public import AuthFlow
import AuthFlowApple
import AuthFlowFacebook
import AuthFlowGoogle
import AuthFlowOAuth2
import AuthFlowOIDC
import AuthFlowX

extension ProviderRegistry {
    /// The built-in plugins: `apple`, `google`, `facebook`, `x`, `oidc` (any OpenID Connect issuer by
    /// discovery; resolve with `resolve(_:discovery:)` from AuthFlowOIDC) and `oauth2` (a plain OAuth 2.0
    /// provider from YAML alone).
    ///
    /// A value: copy it and ``ProviderRegistry/register(_:)`` an application's own plugins.
    public static var standard: ProviderRegistry {
        ProviderRegistry([ApplePlugin(), GooglePlugin(), FacebookPlugin(), XPlugin(), OIDCPlugin(), OAuth2Plugin()])
    }
}
