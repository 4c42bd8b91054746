package import AuthFlowJOSE
package import Foundation

/// What a sign-in carries between the redirect to the provider and the callback.
///
/// It travels sealed in the browser's flow cookie (``FlowRecordSeal``); the server stores nothing at the
/// start, and at the callback only marks the `state` spent (`FlowStore`). Its `description` redacts the
/// nonce, the PKCE verifier and the browser-binding digest.
public struct FlowRecord: Sendable, Hashable, CustomStringConvertible {
    /// The configured provider name the flow was started for.
    package let provider: String
    /// The `state` sent to the provider.
    package let state: String
    /// The OpenID Connect nonce, when `oidc` is enabled.
    package let nonce: String?
    /// The PKCE code verifier, when `pkce` is enabled.
    package let pkceVerifier: String?
    /// Where to send the browser after sign-in (validated by the server before it gets here).
    package let returnTo: String?
    /// Base64url SHA-256 of the browser-binding value that identifies the browser across its sign-ins.
    package let browserBindingDigest: String
    /// What the user asked for.
    package let intent: SignInIntent
    /// When the flow began (from the injected clock).
    package let createdAt: Date
    /// The `max_age` and `acr_values` the sign-in asked for, checked against the id_token; `nil` when none.
    package let stepUp: StepUp?
    /// The grant's DPoP private key (RFC 9449) when the provider's tokens are bound; the code exchange and
    /// userinfo prove possession of it, and it is kept with the tokens.
    package var dpopKey: JWK?

    /// Creates a record.
    package init(
        provider: String, state: String, nonce: String?, pkceVerifier: String?, returnTo: String?,
        browserBindingDigest: String, intent: SignInIntent, createdAt: Date
    ) {
        self.init(
            provider: provider, state: state, nonce: nonce, pkceVerifier: pkceVerifier, returnTo: returnTo,
            browserBindingDigest: browserBindingDigest, intent: intent, createdAt: createdAt, stepUp: nil)
    }

    /// Creates a record that carries a step-up request.
    package init(
        provider: String, state: String, nonce: String?, pkceVerifier: String?, returnTo: String?,
        browserBindingDigest: String, intent: SignInIntent, createdAt: Date, stepUp: StepUp?
    ) {
        self.stepUp = stepUp
        self.provider = provider
        self.state = state
        self.nonce = nonce
        self.pkceVerifier = pkceVerifier
        self.returnTo = returnTo
        self.browserBindingDigest = browserBindingDigest
        self.intent = intent
        self.createdAt = createdAt
    }

    /// A summary without the state, nonce, verifier or binding digest.
    public var description: String {
        "FlowRecord(provider: \(provider), intent: \(intent.rawValue), nonce: \(nonce == nil ? "none" : "<redacted>"), "
            + "pkce: \(pkceVerifier == nil ? "none" : "<redacted>"), dpop: \(dpopKey == nil ? "none" : "<redacted>"), created_at: \(createdAt.timeIntervalSince1970))"
    }
}
