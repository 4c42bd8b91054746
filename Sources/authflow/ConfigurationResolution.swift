import AuthFlow
import AuthFlowHTTP
import AuthFlowOIDC
import AuthFlowProviders
import Foundation
import Synchronization

/// Resolves a loaded configuration against the built-in plugins for the CLI's commands, fetching
/// the discovery document of each `type: oidc` provider first (no request is made when there is
/// none, so configurations of the four fixed providers resolve offline).
enum ConfigurationResolution {
    static func resolve(
        _ configuration: Configuration, credentials: ProviderRegistry.CredentialRequirement = .values
    ) throws(ConfigurationError) -> [ResolvedProvider] {
        let outcome = Mutex<Result<[ResolvedProvider], ConfigurationError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let discovery = OIDCDiscovery(httpClient: CurlHTTPClient())
            let result: Result<[ResolvedProvider], ConfigurationError>
            do throws(ConfigurationError) {
                result = .success(
                    try await ProviderRegistry.standard.resolve(
                        configuration, discovery: discovery, credentials: credentials))
            } catch {
                result = .failure(error)
            }
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        switch outcome.withLock({ $0 }) {
        case .success(let providers): return providers
        case .failure(let error): throw error
        case nil: throw ConfigurationError(issues: [])
        }
    }
}
