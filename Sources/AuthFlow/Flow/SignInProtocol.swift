/// Which protocol a resolved provider speaks: plain OAuth 2.0, OpenID Connect, or WebAuthn (passkeys, no round
/// trip to a provider).
package enum SignInProtocol: String, Sendable, Hashable {
    /// OAuth 2.0 authorization code; identity comes from a userinfo call.
    case oauth2
    /// OpenID Connect; identity comes from a locally verified `id_token`.
    case oidc
    /// WebAuthn (passkeys); identity comes from an assertion verified locally against a stored credential.
    case webAuthn = "webauthn"
}
