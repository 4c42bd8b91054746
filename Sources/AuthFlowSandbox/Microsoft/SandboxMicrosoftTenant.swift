/// A Microsoft Entra tenant (directory) the Microsoft emulator knows, with its own issuer
/// `<base URL>/microsoft/<id>/v2.0`.
package struct SandboxMicrosoftTenant: Sendable, Hashable {
    /// The tenant id: a lowercase GUID.
    package let id: String
    /// A display name for the consent page.
    package let name: String

    /// Creates a tenant; the id is lowercased.
    package init(id: String, name: String) {
        self.id = id.lowercased()
        self.name = name
    }

    /// The first default tenant, "Contoso" (`3c9d2e1f-7a6b-4c5d-8e9f-0a1b2c3d4e5f`).
    package static let contoso = SandboxMicrosoftTenant(id: "3c9d2e1f-7a6b-4c5d-8e9f-0a1b2c3d4e5f", name: "Contoso")
    /// The second default tenant, "Fabrikam" (`8a7b6c5d-4e3f-4a2b-9c1d-0e1f2a3b4c5d`).
    package static let fabrikam = SandboxMicrosoftTenant(id: "8a7b6c5d-4e3f-4a2b-9c1d-0e1f2a3b4c5d", name: "Fabrikam")
    /// Personal Microsoft accounts, Microsoft's fixed tenant `9188040d-6c67-4c5b-b112-36a304b66dad`: the
    /// `tid` of every consumer account, and the tenant of the `consumers` authority. Always known.
    package static let personalAccounts = SandboxMicrosoftTenant(
        id: "9188040d-6c67-4c5b-b112-36a304b66dad", name: "Microsoft accounts")

    /// The tenants a sandbox knows by default: Contoso and Fabrikam.
    package static let defaults: [SandboxMicrosoftTenant] = [contoso, fabrikam]

    /// Whether `text` is a GUID in the 8-4-4-4-12 hexadecimal form.
    package static func isGUID(_ text: String) -> Bool {
        let groups = text.split(separator: "-", omittingEmptySubsequences: false)
        guard groups.map(\.count) == [8, 4, 4, 4, 12] else { return false }
        return groups.allSatisfy { $0.allSatisfy(\.isHexDigit) }
    }
}
