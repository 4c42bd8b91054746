package import AuthFlowJOSE
public import Foundation

/// Provider tokens kept for an identity, e.g. to revoke them when the user disconnects or is deleted.
///
/// Persistent stores keep them encrypted at rest. `description`, `debugDescription` and reflection
/// redact the token values.
public struct StoredTokens: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The access token, when kept.
    public var accessToken: String?
    /// The refresh token, when the provider issued one.
    public var refreshToken: String?
    /// When the access token expires, when the provider said.
    public var accessTokenExpiresAt: Date?
    /// The granted scopes, when the provider returned them.
    public var scope: String?
    /// The client the tokens were issued to when it is not the provider's `client_id` (a native app's bundle
    /// id after Apple's native code exchange): refreshes and revocations then authenticate as it.
    public var clientID: String?
    /// The DPoP private key the tokens are bound to (RFC 9449), kept sealed with them so a refresh on another
    /// instance or after a restart proves possession with the same key.
    package var dpopKey: JWK?

    /// Creates a token value.
    public init(
        accessToken: String?, refreshToken: String?, accessTokenExpiresAt: Date? = nil, scope: String? = nil,
        clientID: String? = nil
    ) {
        self.clientID = clientID
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.accessTokenExpiresAt = accessTokenExpiresAt
        self.scope = scope
    }

    /// Which tokens are present, never their values.
    public var description: String {
        var parts: [String] = []
        parts.append("access_token: \(accessToken == nil ? "none" : "<redacted>")")
        parts.append("refresh_token: \(refreshToken == nil ? "none" : "<redacted>")")
        if let accessTokenExpiresAt { parts.append("expires_at: \(Int64(accessTokenExpiresAt.timeIntervalSince1970))") }
        if let scope { parts.append("scope: \(scope)") }
        if let clientID { parts.append("client_id: \(clientID)") }
        if dpopKey != nil { parts.append("dpop: <redacted>") }
        return "StoredTokens(" + parts.joined(separator: ", ") + ")"
    }

    /// The same redacted summary as ``description``.
    public var debugDescription: String { description }

    /// A mirror without children, so `dump` and reflection cannot print token values.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
