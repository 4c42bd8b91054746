/// A plugin whose provider has tenants (directories) and states the one that issued each identity in
/// ``VerifiedIdentity/tenant`` (Microsoft: the id_token's `tid`).
///
/// Only a provider whose plugin is one may be named with a tenant in an access rule (`PROVIDER/TENANT:NAME`);
/// resolution refuses a tenant rule for any other provider, and a tenant this plugin could never state, at the
/// rule's position.
public protocol TenantStating: ProviderPlugin {
    /// How a tenant is written, for the error that refuses another value (e.g. `a tenant id (a GUID)`).
    var tenantForm: String { get }

    /// Whether `text` can be a tenant this plugin states; tenants compare without regard to ASCII case.
    func isTenant(_ text: String) -> Bool
}
