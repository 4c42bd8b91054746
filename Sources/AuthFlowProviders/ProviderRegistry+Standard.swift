public import AuthFlow
import AuthFlowApple
import AuthFlowFacebook
import AuthFlowGoogle
import AuthFlowOIDC
import AuthFlowX

extension ProviderRegistry {
    /// The built-in plugins: `apple`, `google`, `facebook`, `x` and `oidc` (any OpenID Connect issuer by
    /// discovery; resolve with `resolve(_:discovery:)` from AuthFlowOIDC).
    ///
    /// A value: copy it and ``ProviderRegistry/register(_:)`` an application's own plugins.
    public static var standard: ProviderRegistry {
        ProviderRegistry([ApplePlugin(), GooglePlugin(), FacebookPlugin(), XPlugin(), OIDCPlugin()])
    }
}
