/// An accepted issuer written with a placeholder that one of the token's own claims fills, for issuers
/// that name a tenant per token (Microsoft Entra's `https://login.microsoftonline.com/{tenantid}/v2.0`,
/// filled with `tid`).
///
/// `iss` is accepted when it equals ``template`` with ``placeholder`` replaced by the token's ``claim``,
/// and that claim is a GUID (`8-4-4-4-12` hexadecimal digits), so a claim can never splice a path or
/// another host into the issuer. Any other value of `iss` is refused with `issuer_mismatch`.
package struct IssuerTemplate: Sendable, Hashable {
    /// The issuer with the placeholder, e.g. `https://login.microsoftonline.com/{tenantid}/v2.0`.
    package let template: String
    /// The placeholder, e.g. `{tenantid}`.
    package let placeholder: String
    /// The claim whose value fills the placeholder, e.g. `tid`.
    package let claim: String

    /// Creates a template; `template` should contain `placeholder` once.
    package init(template: String, placeholder: String, claim: String) {
        self.template = template
        self.placeholder = placeholder
        self.claim = claim
    }

    /// The issuer this template gives for a claim value, or `nil` when the value is not a GUID.
    package func issuer(for value: String) -> String? {
        guard Self.isGUID(value), let range = template.firstRange(of: placeholder) else { return nil }
        var issuer = template
        issuer.replaceSubrange(range, with: value)
        return issuer
    }

    /// `8-4-4-4-12` hexadecimal digits (either case).
    package static func isGUID(_ value: String) -> Bool {
        let utf8 = Array(value.utf8)
        guard utf8.count == 36 else { return false }
        for (index, byte) in utf8.enumerated() {
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                let isHex =
                    (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                    || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
                    || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
                guard isHex else { return false }
            }
        }
        return true
    }
}
