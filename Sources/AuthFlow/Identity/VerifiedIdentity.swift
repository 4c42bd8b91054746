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
    /// The groups the provider placed the user in, as its plugin or the `claims.groups` mapping reads them;
    /// empty when the provider states none.
    package let groups: [String]
    /// The roles the provider granted the user in this application (Microsoft's app `roles`), kept apart from
    /// ``groups`` so that a role never satisfies a group rule; empty when the plugin states none.
    package let roles: [String]
    /// The tenant (directory) that issued the identity, for plugins whose provider has tenants (Microsoft's
    /// `tid`); `nil` otherwise. Access rules written `PROVIDER/TENANT:NAME` compare it.
    package let tenant: String?
    /// Whether the email is a relay address the provider made for this application (Apple's
    /// `is_private_email`), which forwards to the user's real mailbox.
    package let isPrivateRelayEmail: Bool
    /// Whether the plugin vouches for the email as proof of mailbox ownership strong enough to link this
    /// identity to an existing user (`link_by_verified_email`). Never true without ``emailVerified``; a
    /// plugin sets it false where the provider's "verified" is weaker than that (see docs/providers.md).
    package let emailLinkable: Bool

    /// Creates an identity; plugins call this from their claim or userinfo mapping.
    ///
    /// `emailLinkable` defaults to `emailVerified` and is never true when `emailVerified` is false.
    public init(
        provider: String, subject: String, email: String?, emailVerified: Bool, name: String?,
        source: IdentitySource, rawClaims: [String: JSONValue], groups: [String] = [], roles: [String] = [],
        tenant: String? = nil, isPrivateRelayEmail: Bool = false, emailLinkable: Bool? = nil
    ) {
        self.provider = provider
        self.subject = subject
        self.email = email
        self.emailVerified = emailVerified
        self.name = name
        self.source = source
        self.rawClaims = rawClaims
        self.groups = groups
        self.roles = roles
        self.tenant = tenant
        self.isPrivateRelayEmail = isPrivateRelayEmail
        self.emailLinkable = emailVerified && email != nil && (emailLinkable ?? true)
    }
}
