/// How a provider's `id_token` must carry the nonce sent in the authorization request.
public enum NoncePolicy: Sendable, Hashable {
    /// The `nonce` claim must be present and equal the stored nonce.
    case required
    /// Sign in with Apple: the nonce is mandatory when the token says `nonce_supported` (`true` or `"true"`);
    /// when that claim is absent or false, a present `nonce` must still match, and an absent one is accepted.
    case requiredWhenNonceSupported
}
