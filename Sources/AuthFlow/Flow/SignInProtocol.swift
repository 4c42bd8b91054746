/// Which protocol a resolved provider speaks: plain OAuth 2.0 or OpenID Connect.
public enum SignInProtocol: String, Sendable, Hashable {
    /// OAuth 2.0 authorization code; identity comes from a userinfo call.
    case oauth2
    /// OpenID Connect; identity comes from a locally verified `id_token`.
    case oidc
}
