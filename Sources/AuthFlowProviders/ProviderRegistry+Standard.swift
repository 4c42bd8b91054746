public import AuthFlow
import AuthFlowApple
import AuthFlowFacebook
import AuthFlowGoogle
import AuthFlowX

extension ProviderRegistry {
    /// The built-in plugins: `apple`, `google`, `facebook` and `x`.
    ///
    /// A value: copy it and ``ProviderRegistry/register(_:)`` an application's own plugins.
    public static var standard: ProviderRegistry {
        ProviderRegistry([ApplePlugin(), GooglePlugin(), FacebookPlugin(), XPlugin()])
    }
}
