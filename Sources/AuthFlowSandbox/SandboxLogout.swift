package import Foundation
import Synchronization

/// One accepted RP-initiated logout request (OpenID Connect RP-Initiated Logout 1.0), for tests.
package struct SandboxLogout: Sendable, Hashable {
    /// The client the logout came from (the `id_token_hint`'s `aud`, else `client_id`), if known.
    package let clientID: String?
    /// The `sub` of the `id_token_hint`, if one was sent.
    package let subject: String?
    /// The `tid` of the `id_token_hint` (Microsoft), if one was sent.
    package let tenantID: String?
    /// Where the user was sent back; `nil` when the logout ended on the provider's own page.
    package let postLogoutRedirectURI: String?
    /// The `state` returned with the redirect.
    package let state: String?
    /// Whether the request came as a form POST (else GET).
    package let viaPOST: Bool
    /// When the logout was accepted.
    package let loggedOutAt: Date
}

extension SandboxIdentityProvider {
    /// Every RP-initiated logout a provider accepted, oldest first (refused requests are not recorded).
    package func logouts(for provider: SandboxProvider) -> [SandboxLogout] {
        state.withLock { $0.logouts[provider] ?? [] }
    }
}
