public import Foundation
import Synchronization

/// One accepted RP-initiated logout request (OpenID Connect RP-Initiated Logout 1.0), for tests.
public struct SandboxLogout: Sendable, Hashable {
    /// The client the logout came from (the `id_token_hint`'s `aud`, else `client_id`), if known.
    public let clientID: String?
    /// The `sub` of the `id_token_hint`, if one was sent.
    public let subject: String?
    /// The `tid` of the `id_token_hint` (Microsoft), if one was sent.
    public let tenantID: String?
    /// Where the user was sent back; `nil` when the logout ended on the provider's own page.
    public let postLogoutRedirectURI: String?
    /// The `state` returned with the redirect.
    public let state: String?
    /// Whether the request came as a form POST (else GET).
    public let viaPOST: Bool
    /// When the logout was accepted.
    public let loggedOutAt: Date
}

extension SandboxIdentityProvider {
    /// Every RP-initiated logout a provider accepted, oldest first (refused requests are not recorded).
    public func logouts(for provider: SandboxProvider) -> [SandboxLogout] {
        state.withLock { $0.logouts[provider] ?? [] }
    }
}
