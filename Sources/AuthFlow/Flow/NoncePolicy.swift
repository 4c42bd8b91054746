/// How a provider's `id_token` must carry the nonce sent in the authorization request.
///
/// AuthFlow sends a fresh nonce with every OpenID Connect authorization request, so every provider's id_token
/// must return it unless its plugin says it does not. (Sign in with Apple's `nonce_supported` claim is not consulted: a token without the nonce
/// is refused whatever it says.)
public enum NoncePolicy: Sendable, Hashable {
    /// The `nonce` claim must be present and equal the stored nonce.
    case required
    /// The provider does not return the nonce (LinkedIn): a `nonce` claim that is present must still equal the
    /// stored one; the state and the browser binding protect the callback either way.
    case notEchoed
}
