/// A test user the consent page signs in as.
///
/// The `subject` is used verbatim as the provider's `sub` / user id, so a test can predict it.
public struct SandboxIdentity: Sendable, Hashable {
    /// The stable user identifier the provider reports (`sub`, Graph `id`, X `data.id`).
    public var subject: String
    /// The user's email address, if the user has one.
    public var email: String?
    /// Whether the provider vouches for the email address.
    public var emailVerified: Bool
    /// Apple only: whether `email` is a private relay address.
    public var isPrivateEmail: Bool
    /// The given (first) name.
    public var givenName: String?
    /// The family (last) name.
    public var familyName: String?
    /// X and GitHub: the @handle or login (without the @).
    public var username: String?
    /// Microsoft only: the user's home tenant (directory) GUID, the `tid` of a sign-in through `common`,
    /// `organizations` or `consumers`; `nil` means the first of ``SandboxConfiguration/microsoftTenants``. A
    /// sign-in through a tenant's own authority always gets that tenant's `tid` (a member or a guest there).
    public var tenantID: String?
    /// Microsoft only: the user's object id in the tenant (`oid`); `nil` derives a stable GUID from the subject.
    public var objectID: String?
    /// Microsoft only: the `groups` claim (group object ids); omitted when empty.
    public var groups: [String]
    /// Microsoft only: the `roles` claim (app roles assigned to the user); omitted when empty.
    public var roles: [String]
    /// Test hook, Microsoft only: the tenant GUID the id_token's `iss` names instead of its `tid`, so a relying
    /// party can prove it refuses a token whose issuer does not match its own tenant (`nil`: they match).
    public var issuerTenantID: String?
    /// GitHub only: whether `email` is the public profile email that `GET /user` shows (otherwise `email` is
    /// `null` there and only `/user/emails` lists the address).
    public var emailIsPublic: Bool
    /// GitHub only: addresses besides `email` (the primary) that `GET /user/emails` lists.
    public var additionalEmails: [AdditionalEmail]

    /// A further email address of a GitHub user.
    public struct AdditionalEmail: Sendable, Hashable {
        /// The address.
        public var address: String
        /// Whether GitHub verified it.
        public var verified: Bool

        /// Creates an additional address.
        public init(address: String, verified: Bool) {
            self.address = address
            self.verified = verified
        }
    }

    /// Creates a test identity.
    public init(
        subject: String, email: String? = nil, givenName: String? = nil, familyName: String? = nil,
        username: String? = nil, emailVerified: Bool = true, isPrivateEmail: Bool = false, tenantID: String? = nil,
        objectID: String? = nil, groups: [String] = [], roles: [String] = [], issuerTenantID: String? = nil,
        emailIsPublic: Bool = false, additionalEmails: [AdditionalEmail] = []
    ) {
        self.subject = subject
        self.email = email
        self.emailVerified = emailVerified
        self.isPrivateEmail = isPrivateEmail
        self.givenName = givenName
        self.familyName = familyName
        self.username = username
        self.tenantID = tenantID
        self.objectID = objectID
        self.groups = groups
        self.roles = roles
        self.issuerTenantID = issuerTenantID
        self.emailIsPublic = emailIsPublic
        self.additionalEmails = additionalEmails
    }

    /// The full display name, given name first; `nil` when neither part is known.
    public var name: String? {
        let parts = [givenName, familyName].compactMap { $0 }.filter { !$0.isEmpty }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }

    /// The ready-made identities the consent page offers for a provider, with provider-shaped subjects
    /// (Apple `000123.<hex>.0456`, numeric ids elsewhere).
    public static func presets(for provider: SandboxProvider) -> [SandboxIdentity] {
        provider.emulator.presets
    }
}
