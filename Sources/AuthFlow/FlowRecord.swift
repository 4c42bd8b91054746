public import Foundation

/// What the server keeps between the redirect to the provider and the callback, keyed by `state`.
///
/// It is stored in a ``FlowStore`` with a short TTL and taken (read and deleted) exactly once. Its
/// `description` redacts the nonce, the PKCE verifier and the browser-binding digest.
public struct FlowRecord: Sendable, Hashable, CustomStringConvertible {
    /// The configured provider name the flow was started for.
    public let provider: String
    /// The `state` sent to the provider: the record's key.
    public let state: String
    /// The OpenID Connect nonce, when `oidc` is enabled.
    public let nonce: String?
    /// The PKCE code verifier, when `pkce` is enabled.
    public let pkceVerifier: String?
    /// Where to send the browser after sign-in (validated by the server before it gets here).
    public let returnTo: String?
    /// Base64url SHA-256 of the browser-binding value (e.g. a flow cookie); the value itself is not stored.
    public let browserBindingDigest: String
    /// What the user asked for.
    public let intent: SignInIntent
    /// When the flow began (from the injected clock).
    public let createdAt: Date

    /// Creates a record.
    public init(
        provider: String, state: String, nonce: String?, pkceVerifier: String?, returnTo: String?,
        browserBindingDigest: String, intent: SignInIntent, createdAt: Date
    ) {
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
            + "pkce: \(pkceVerifier == nil ? "none" : "<redacted>"), created_at: \(createdAt.timeIntervalSince1970))"
    }
}
