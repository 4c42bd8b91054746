/// Who may pass `GET /auth/check` (`server.access`): each list narrows, an empty list allows any, and the
/// lists apply together (a user must satisfy every non-empty one).
public struct AccessRules: Sendable, Hashable {
    /// Domains of the verified email, lowercased ASCII (`xn--` for internationalized ones); a subdomain
    /// matches only when listed itself.
    public var emailDomains: [String]
    /// Whole verified emails, compared with the domain lowercased.
    public var emails: [String]
    /// Names of the providers the user signed in with.
    public var providers: [String]
    /// Groups the provider placed the user in at sign-in (compared exactly, case-sensitive): any one of them
    /// matching is enough.
    public var groups: [String]

    /// Creates rules; give domains as ``normalizedDomain(_:)`` returns them.
    public init(emailDomains: [String] = [], emails: [String] = [], providers: [String] = [], groups: [String] = []) {
        self.emailDomains = emailDomains
        self.emails = emails
        self.providers = providers
        self.groups = groups
    }

    /// Whether every list is empty (everyone signed in passes).
    public var isEmpty: Bool { emailDomains.isEmpty && emails.isEmpty && providers.isEmpty && groups.isEmpty }

    /// Whether a user who signed in with `provider`, whose email is `email` (pass `nil` when it is not
    /// verified: an unverified email matches nothing) and whom the provider placed in `groups`, satisfies the
    /// rules.
    public func allows(provider: String, verifiedEmail email: String?, groups: [String] = []) -> Bool {
        if !providers.isEmpty, !providers.contains(provider) { return false }
        if !self.groups.isEmpty, !groups.contains(where: self.groups.contains) { return false }
        if emailDomains.isEmpty, emails.isEmpty { return true }
        guard let email, let parsed = Self.parseEmail(email) else { return false }
        if !emailDomains.isEmpty, !emailDomains.contains(parsed.domain) { return false }
        if !emails.isEmpty, !emails.contains(parsed.local + "@" + parsed.domain) { return false }
        return true
    }

    /// `domain` lowercased when it is an ASCII host name (letters, digits, `-`, dot-separated non-empty labels of
    /// at most 63 bytes, at most 253 bytes in all); `nil` otherwise, including for any non-ASCII domain (its
    /// IDNA ASCII form, `xn--…`, is what compares).
    public static func normalizedDomain(_ domain: some StringProtocol) -> String? {
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
    public static func hasNonASCII(_ text: some StringProtocol) -> Bool { text.utf8.contains { $0 >= 0x80 } }

    /// The local part and lowercased domain of `email`, parsed strictly: exactly one `@`, a non-empty local part
    /// and a domain ``normalizedDomain(_:)`` accepts; `nil` otherwise (`a@evil.com@company.com` has none).
    public static func parseEmail(_ email: String) -> (local: String, domain: String)? {
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, let domain = normalizedDomain(parts[1]) else { return nil }
        return (String(parts[0]), domain)
    }
}
