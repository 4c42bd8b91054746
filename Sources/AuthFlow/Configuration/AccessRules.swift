/// Who may pass `GET /auth/check` (`server.access`): each list narrows, an empty list allows any, and the
/// lists apply together (a user must satisfy every non-empty one).
package struct AccessRules: Sendable, Hashable {
    /// Domains of the verified email, lowercased ASCII (`xn--` for internationalized ones); a subdomain
    /// matches only when listed itself.
    package var emailDomains: [String]
    /// Whole verified emails, compared with the domain lowercased.
    package var emails: [String]
    /// Names of the providers the user signed in with.
    package var providers: [String]
    /// Group rules as written (`NAME` from any provider, `PROVIDER:NAME`,
    /// `PROVIDER/TENANT:NAME`, `*:NAME`): any one of them matching a group the provider placed the user in at
    /// sign-in is enough. A rule that does not parse matches nothing.
    package var groups: [String] { didSet { groupRules = groups.map { MembershipRule(parsing: $0) } } }
    /// Role rules, written as ``groups`` and matched against the roles the provider granted (Microsoft's app
    /// `roles`), never against groups.
    package var roles: [String] { didSet { roleRules = roles.map { MembershipRule(parsing: $0) } } }
    /// ``groups`` parsed (`nil` for one that does not parse).
    package private(set) var groupRules: [MembershipRule?]
    /// ``roles`` parsed (`nil` for one that does not parse).
    package private(set) var roleRules: [MembershipRule?]

    /// Creates rules; give domains as ``normalizedDomain(_:)`` returns them, groups and roles as written.
    package init(
        emailDomains: [String] = [], emails: [String] = [], providers: [String] = [], groups: [String] = [],
        roles: [String] = []
    ) {
        self.emailDomains = emailDomains
        self.emails = emails
        self.providers = providers
        self.groups = groups
        self.roles = roles
        groupRules = groups.map { MembershipRule(parsing: $0) }
        roleRules = roles.map { MembershipRule(parsing: $0) }
    }

    /// Whether every list is empty (everyone signed in passes).
    package var isEmpty: Bool {
        emailDomains.isEmpty && emails.isEmpty && providers.isEmpty && groups.isEmpty && roles.isEmpty
    }

    /// Whether a user who signed in with `provider` (in `tenant`, for a provider with tenants), whose email is
    /// `email` (pass `nil` when it is not verified: an unverified email matches nothing), whom the provider placed
    /// in `groups` and granted `roles`, satisfies the rules.
    package func allows(
        provider: String, tenant: String? = nil, verifiedEmail email: String?, groups: [String] = [],
        roles: [String] = []
    ) -> Bool {
        if !providers.isEmpty, !providers.contains(provider) { return false }
        // Gated on the written lists, so rules that all fail to parse refuse everyone rather than no one.
        if !self.groups.isEmpty,
            !groupRules.contains(where: { $0?.matches(groups, provider: provider, tenant: tenant) == true })
        {
            return false
        }
        if !self.roles.isEmpty,
            !roleRules.contains(where: { $0?.matches(roles, provider: provider, tenant: tenant) == true })
        {
            return false
        }
        if emailDomains.isEmpty, emails.isEmpty { return true }
        guard let email, let parsed = Self.parseEmail(email) else { return false }
        if !emailDomains.isEmpty, !emailDomains.contains(parsed.domain) { return false }
        if !emails.isEmpty, !emails.contains(parsed.local + "@" + parsed.domain) { return false }
        return true
    }

    /// `domain` lowercased when it is an ASCII host name (letters, digits, `-`, dot-separated non-empty labels of
    /// at most 63 bytes, at most 253 bytes in all); `nil` otherwise, including for any non-ASCII domain (its
    /// IDNA ASCII form, `xn--…`, is what compares).
    package static func normalizedDomain(_ domain: some StringProtocol) -> String? {
        let bytes = Array(domain.utf8)
        guard !bytes.isEmpty, bytes.count <= 253 else { return nil }
        var label = 0
        var lowered: [UInt8] = []
        lowered.reserveCapacity(bytes.count)
        for byte in bytes {
            switch byte {
            case 0x2E:
                guard label > 0 else { return nil }
                label = 0
            case 0x41...0x5A:
                label += 1
            case 0x61...0x7A, 0x30...0x39, 0x2D:
                label += 1
            default:
                return nil
            }
            guard label <= 63 else { return nil }
            lowered.append(byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte)
        }
        guard label > 0 else { return nil }
        return String(decoding: lowered, as: UTF8.self)
    }

    /// Whether `text` has a byte outside ASCII (an internationalized domain not in its `xn--` form).
    package static func hasNonASCII(_ text: some StringProtocol) -> Bool { text.utf8.contains { $0 >= 0x80 } }

    /// The local part and lowercased domain of `email`, parsed strictly: exactly one `@`, a non-empty local part
    /// and a domain ``normalizedDomain(_:)`` accepts; `nil` otherwise (`a@evil.com@company.com` has none).
    package static func parseEmail(_ email: String) -> (local: String, domain: String)? {
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, let domain = normalizedDomain(parts[1]) else { return nil }
        return (String(parts[0]), domain)
    }
}
