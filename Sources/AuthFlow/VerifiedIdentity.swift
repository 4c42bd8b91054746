public import AuthFlowJOSE

/// The user's identity as established by a completed sign-in: only values the provider vouched for.
///
/// It comes either from a locally verified `id_token` or from the provider's userinfo response fetched
/// over TLS with the access token. Apple's unsigned first-login `user` field is never part of it (see
/// ``UnverifiedProfile``).
public struct VerifiedIdentity: Sendable, Hashable {
    /// The configured provider name (`providers.<name>`), e.g. `"apple"`.
    public let provider: String
    /// The provider's stable subject identifier for the user (`sub`, Facebook `id`, X `data.id`).
    public let subject: String
    /// The email address, when the provider returned one.
    public let email: String?
    /// Whether the provider asserts the email address is verified.
    public let emailVerified: Bool
    /// The display name the provider returned, if any.
    public let name: String?
    /// Where the identity was read from.
    public let source: IdentitySource
    /// Every claim or userinfo member, for application-specific needs.
    public let rawClaims: [String: JSONValue]

    /// Creates an identity; plugins call this from their claim or userinfo mapping.
    public init(
        provider: String, subject: String, email: String?, emailVerified: Bool, name: String?,
        source: IdentitySource, rawClaims: [String: JSONValue]
    ) {
        self.provider = provider
        self.subject = subject
        self.email = email
        self.emailVerified = emailVerified
        self.name = name
        self.source = source
        self.rawClaims = rawClaims
    }
}
