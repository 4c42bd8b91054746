/// Which providers' verified emails may link a first sign-in to an existing user
/// (`server.link_by_verified_email`), and how two addresses are compared.
///
/// `false` (the default) never links; `true` trusts every provider's `email_verified`; a list such as
/// `[apple, google]` trusts only the providers named there, so a `type: oidc` issuer the operator does not
/// vouch for cannot claim another user's address. Addresses match only when they are identical after the
/// domain is lower-cased in ASCII (see `matches(_:_:)`).
package enum EmailLinkPolicy: Sendable, Hashable, ExpressibleByBooleanLiteral {
    /// No sign-in is linked by email.
    case off
    /// Every provider's verified email may link.
    case allProviders
    /// Only these providers' (by configured name) verified emails may link.
    case providers(Set<String>)

    /// `true` is ``allProviders``, `false` is ``off``.
    package init(booleanLiteral value: Bool) {
        self = value ? .allProviders : .off
    }

    /// Whether a verified email from the provider named `provider` may link to an existing user.
    package func allows(provider: String) -> Bool {
        switch self {
        case .off: false
        case .allProviders: true
        case .providers(let names): names.contains(provider)
        }
    }

    /// Whether two email addresses name the same mailbox for linking: the local parts (before the last `@`)
    /// are compared byte for byte and the domains after lower-casing ASCII letters only. No Unicode case
    /// folding or normalization is applied, so `\u{212A}ate@example.com` (KELVIN SIGN) never matches
    /// `kate@example.com`; an address without `@` or with an empty part matches nothing.
    package static func matches(_ left: String, _ right: String) -> Bool {
        guard let left = comparable(left), let right = comparable(right) else { return false }
        return left == right
    }

    /// The bytes compared by ``matches(_:_:)``, or `nil` for something that is not an address.
    static func comparable(_ address: String) -> [UInt8]? {
        let bytes = Array(address.utf8)
        guard let at = bytes.lastIndex(of: UInt8(ascii: "@")), at > 0, at < bytes.count - 1 else { return nil }
        var result = Array(bytes[..<at])
        result.append(UInt8(ascii: "@"))
        for byte in bytes[(at + 1)...] {
            result.append(byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte)
        }
        return result
    }
}
