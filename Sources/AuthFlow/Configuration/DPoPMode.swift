/// A provider's `dpop:` key: whether the provider's tokens are bound to a key the client proves it holds
/// (RFC 9449, OAuth 2.0 Demonstrating Proof of Possession).
package enum DPoPMode: String, Sendable, Hashable, CaseIterable {
    /// Prove possession when the provider advertises `dpop_signing_alg_values_supported` with an algorithm
    /// AuthFlow signs proofs with (ES256, EdDSA); the default.
    case auto
    /// Always prove possession (RFC 9449 lets a client send proofs to any server; one that does not bind tokens
    /// answers `token_type: Bearer`, which is then refused).
    case on = "true"
    /// Never send a proof.
    case off = "false"
}
