/// How a provider is asked for a refresh token, so reports can tell an operator what to add when tokens
/// are stored (a description's `refreshTokenRequest`).
public enum RefreshTokenRequest: Sendable, Hashable {
    /// Nothing to configure: the provider issues one unasked, or issues none at all.
    case none
    /// Requesting this scope, e.g. X's `offline.access` or OpenID Connect's `offline_access`.
    case scope(String)
    /// Sending this authorization parameter with this value, e.g. Google's `access_type=offline`.
    case authorizationParameter(name: String, value: String)
}
