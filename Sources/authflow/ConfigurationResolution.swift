import AuthFlow
import AuthFlowCurl
import AuthFlowHTTP
import AuthFlowProviders
import Foundation

/// Resolves a loaded configuration against the built-in plugins for the CLI's commands, fetching
/// the discovery document of each `type: oidc` provider first (no request is made when there is
/// none, so configurations of the four fixed providers resolve offline).
enum ConfigurationResolution {
    static func resolve(
        _ configuration: Configuration, credentials: ProviderRegistry.CredentialRequirement = .values
    ) async throws(ConfigurationError) -> [ResolvedProvider] {
        try await ProviderRegistry.standard.resolve(
            configuration, httpClient: CurlHTTPClient(), credentials: credentials)
    }
}
