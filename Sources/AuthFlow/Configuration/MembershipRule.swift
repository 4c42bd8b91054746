/// One rule of `server.access.groups` or `server.access.roles`: a group or role name and, when the rule says so,
/// the provider (and its tenant) that must have stated it.
///
/// Written forms (everything before the first `:` qualifies the name):
/// - `NAME`: the name from **any** provider (kept for compatibility; a name with no `:` of its own).
/// - `PROVIDER:NAME`: only from a sign-in through the configured provider `PROVIDER`.
/// - `PROVIDER/TENANT:NAME`: also only when the identity's tenant (``VerifiedIdentity/tenant``) is `TENANT`,
///   compared without regard to ASCII case.
/// - `*:NAME`: any provider, written so when the name has a `:` of its own (`*:team:ops` is `team:ops`).
package struct MembershipRule: Sendable, Hashable, CustomStringConvertible {
    /// The configured provider name that must have stated the name; `nil` for any provider.
    package let provider: String?
    /// The tenant that must have issued the identity; only with a ``provider``.
    package let tenant: String?
    /// The group or role name, compared exactly (case matters).
    package let name: String

    /// Creates a rule; a `tenant` without a `provider` is dropped (a tenant belongs to one provider).
    package init(name: String, provider: String? = nil, tenant: String? = nil) {
        self.name = name
        self.provider = provider
        self.tenant = provider == nil ? nil : tenant
    }

    /// The rule `text` writes; `nil` when it is malformed: an empty name, an empty provider or tenant, a qualifier
    /// with more than one `/`, or a tenant after `*`.
    package init?(parsing text: some StringProtocol) {
        guard let colon = text.firstIndex(of: ":") else {
            guard !text.isEmpty else { return nil }
            self.init(name: String(text))
            return
        }
        let qualifier = text[..<colon]
        let name = String(text[text.index(after: colon)...])
        guard !name.isEmpty else { return nil }
        if qualifier == "*" {
            self.init(name: name)
            return
        }
        let parts = qualifier.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count <= 2, parts.allSatisfy({ !$0.isEmpty && $0 != "*" }) else { return nil }
        self.init(name: name, provider: String(parts[0]), tenant: parts.count == 2 ? String(parts[1]) : nil)
    }

    /// The written form: `NAME` (`*:NAME` when the name has a `:`), `PROVIDER:NAME` or `PROVIDER/TENANT:NAME`.
    package var description: String {
        guard let provider else { return name.contains(":") ? "*:" + name : name }
        return provider + (tenant.map { "/" + $0 } ?? "") + ":" + name
    }

    /// Whether a user whom the provider `provider` (in `tenant`, when it has tenants) placed in `names` satisfies
    /// the rule.
    package func matches(_ names: [String], provider: String, tenant: String?) -> Bool {
        if let required = self.provider, required != provider { return false }
        if let required = self.tenant {
            guard let tenant, Self.sameTenant(required, tenant) else { return false }
        }
        return names.contains(name)
    }

    /// Whether two tenants are the same, ASCII letters compared without regard to case (Entra's GUIDs are
    /// written either way); any other byte compares exactly.
    static func sameTenant(_ lhs: String, _ rhs: String) -> Bool {
        let left = Array(lhs.utf8)
        let right = Array(rhs.utf8)
        guard left.count == right.count else { return false }
        func lower(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte }
        return zip(left, right).allSatisfy { lower($0) == lower($1) }
    }
}
