/// Provider keys only some provider types read: `tenant`, `allowed_tenants` and `allow_any_tenant`
/// (`microsoft`), `base_url` (`microsoft`, `gitlab`, `github`: a self-hosted instance or a test stand-in),
/// `hosted_domain` (`google`), `allowed_organizations` and `allowed_teams` (`github`), and the relying party
/// of `type: passkey` (`rp_id`, `rp_name`, `origins`, `user_verification`, `attestation`).
///
/// The loader reads them for every provider; a provider whose plugin does not declare a key it sets (see
/// ``ProviderPreparing/optionKeys``) is a configuration error at the key's position.
public struct ProviderOptions: Sendable, Hashable {
    /// `tenant`: which accounts may sign in (Microsoft: `common`, `organizations`, `consumers` or a tenant id).
    public var tenant: String?
    /// `allowed_tenants`: the tenant ids whose tokens are accepted.
    package var allowedTenants: [String]?
    /// `allow_any_tenant`: accept tokens of every tenant (a multi-tenant app open to all organizations).
    package var allowAnyTenant: Bool?
    /// `base_url`: the provider's base URL (a self-hosted instance, or a stand-in for tests).
    public var baseURL: String?
    /// `hosted_domain`: the Google Workspace domain whose accounts alone may sign in, checked against the
    /// id_token's (or userinfo's) `hd` claim, lower-cased; never against the email's domain.
    package var hostedDomain: String?
    /// `allowed_organizations`: the GitHub organizations (logins, lower-cased) one of which the user must belong to.
    package var allowedOrganizations: [String]?
    /// `allowed_teams`: the GitHub teams (`org/team-slug`, lower-cased) one of which the user must belong to.
    package var allowedTeams: [String]?
    /// The keys of `type: passkey` (`rp_id`, `rp_name`, `origins`, `user_verification`, `attestation`).
    package var passkey = PasskeyOptions()

    /// Creates options; every key absent by default.
    package init(
        tenant: String? = nil, allowedTenants: [String]? = nil, allowAnyTenant: Bool? = nil, baseURL: String? = nil
    ) {
        self.tenant = tenant
        self.allowedTenants = allowedTenants
        self.allowAnyTenant = allowAnyTenant
        self.baseURL = baseURL
    }

    /// The YAML keys of these options.
    package static let keys =
        [
            "tenant", "allowed_tenants", "allow_any_tenant", "base_url", "hosted_domain", "allowed_organizations",
            "allowed_teams",
        ] + PasskeyOptions.keys
}
