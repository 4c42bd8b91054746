/// A test user the consent page signs in as.
///
/// The `subject` is used verbatim as the provider's `sub` / user id, so a test can predict it.
package struct SandboxIdentity: Sendable, Hashable {
    /// The stable user identifier the provider reports (`sub`, Graph `id`, X `data.id`).
    package var subject: String
    /// The user's email address, if the user has one.
    package var email: String?
    /// Whether the provider vouches for the email address.
    package var emailVerified: Bool
    /// Apple only: whether `email` is a private relay address.
    package var isPrivateEmail: Bool
    /// The given (first) name.
    package var givenName: String?
    /// The family (last) name.
    package var familyName: String?
    /// X and GitHub: the @handle or login (without the @).
    package var username: String?
    /// Microsoft only: the user's home tenant (directory) GUID, the `tid` of a sign-in through `common`,
    /// `organizations` or `consumers`; `nil` means the first of `SandboxConfiguration.microsoftTenants`. A
    /// sign-in through a tenant's own authority always gets that tenant's `tid` (a member or a guest there).
    package var tenantID: String?
    /// Microsoft only: the user's object id in the tenant (`oid`); `nil` derives a stable GUID from the subject.
    package var objectID: String?
    /// Microsoft and Google: the `groups` claim (Microsoft: group object ids; Google: as a Workspace claims
    /// mapping sends them); omitted when empty.
    package var groups: [String]
    /// Microsoft only: the `roles` claim (app roles assigned to the user); omitted when empty.
    package var roles: [String]
    /// Test hook, Microsoft only: the tenant GUID the id_token's `iss` names instead of its `tid`, so a relying
    /// party can prove it refuses a token whose issuer does not match its own tenant (`nil`: they match).
    package var issuerTenantID: String?
    /// GitHub only: whether `email` is the public profile email that `GET /user` shows (otherwise `email` is
    /// `null` there and only `/user/emails` lists the address).
    package var emailIsPublic: Bool
    /// GitHub only: addresses besides `email` (the primary) that `GET /user/emails` lists.
    package var additionalEmails: [AdditionalEmail]
    /// Test hook, Microsoft only: the id_token has no `groups` but the overage pointer Entra sends past 200
    /// groups (`_claim_names.groups` naming a `_claim_sources` entry with a Graph endpoint).
    package var groupsOverage: Bool
    /// Google only: the Google Workspace domain of the account, sent as the `hd` claim of the id_token and of
    /// userinfo (Google sends `hd` only for accounts of a Workspace or Cloud organization); `nil` for none.
    package var hostedDomain: String?
    /// Step-up tests: the `acr` this user's authentication reaches whatever `acr_values` asked (a provider that
    /// cannot satisfy the request); `nil` gives the first value asked.
    package var pinnedACR: String? = nil
    /// Step-up tests: how many seconds before the sign-in the provider says the user authenticated (a provider
    /// that ignores `max_age` and reuses an old authentication); `nil` authenticates afresh.
    package var staleAuthenticationSeconds: Int64? = nil

    /// A further email address of a GitHub user.
    package struct AdditionalEmail: Sendable, Hashable {
        /// The address.
        package var address: String
        /// Whether GitHub verified it.
        package var verified: Bool

        /// Creates an additional address.
        package init(address: String, verified: Bool) {
            self.address = address
            self.verified = verified
        }
    }

    /// Creates a test identity.
    package init(
        subject: String, email: String? = nil, givenName: String? = nil, familyName: String? = nil,
        username: String? = nil, emailVerified: Bool = true, isPrivateEmail: Bool = false, tenantID: String? = nil,
        objectID: String? = nil, groups: [String] = [], roles: [String] = [], issuerTenantID: String? = nil,
        emailIsPublic: Bool = false, additionalEmails: [AdditionalEmail] = [], groupsOverage: Bool = false,
        hostedDomain: String? = nil
    ) {
        self.hostedDomain = hostedDomain
        self.groupsOverage = groupsOverage
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
    package var name: String? {
        let parts = [givenName, familyName].compactMap { $0 }.filter { !$0.isEmpty }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }

    /// The ready-made identities the consent page offers for a provider, with provider-shaped subjects
    /// (Apple `000123.<hex>.0456`, numeric ids elsewhere).
    package static func presets(for provider: SandboxProvider) -> [SandboxIdentity] {
        provider.emulator.presets
    }
}
