/// A provider's `profile:` key: a security profile whose client requirements it turns on together.
package enum ProviderProfile: String, Sendable, Hashable, CaseIterable {
    /// No profile; each key as configured (the default).
    case none
    /// The FAPI 2.0 Security Profile (https://openid.net/specs/fapi-security-profile-2_0-final.html) for
    /// `type: oidc`: pushed authorization requests, PKCE S256, `private_key_jwt` with the issuer as the
    /// assertion's audience, DPoP, the RFC 9207 `iss` response parameter required, and id_token, request
    /// object and assertion algorithms among PS256, ES256 and EdDSA.
    case fapi2
}
