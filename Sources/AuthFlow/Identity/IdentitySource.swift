/// Where a sign-in takes the user's identity from.
public enum IdentitySource: String, Sendable, Hashable {
    /// A locally verified `id_token` (OpenID Connect).
    case idToken = "id_token"
    /// The provider's userinfo (or profile) endpoint, called with the access token.
    case userinfo
    /// A WebAuthn assertion verified locally against the credential registered for the user (passkeys).
    case assertion
}
