package import AuthFlow
internal import Foundation

/// The provider keys of `type: passkey` (`rp_id`, `rp_name`, `origins`, `user_verification`, `attestation`), as
/// the plugin reads them from its ``ProviderOptions`` (each checked for its form, `PasskeyOptions+Reading.swift`);
/// the plugin checks how they fit together and the server builds its relying party from ``effective``.
package struct PasskeyOptions: Sendable, Hashable {
    package typealias UserVerification = PasskeyRelyingPartySettings.UserVerification
    package typealias Attestation = PasskeyRelyingPartySettings.Attestation

    /// `rp_id`: a lowercase host name.
    package var rpID: String?
    /// `rp_name`.
    package var rpName: String?
    /// `origins`: exact web origins (`https://host[:port]`) and app origins (`android:apk-key-hash:…`).
    package var origins: [String]?
    /// `user_verification`.
    package var userVerification: UserVerification?
    /// `attestation`.
    package var attestation: Attestation?
    /// `server.public_url`, when set: the defaults of `rp_id` and `origins` come from it.
    package var publicURL: String?

    package init() {}

    /// The YAML keys.
    package static let keys = ["rp_id", "rp_name", "origins", "user_verification", "attestation"]

    /// The values in effect, or `nil` when `rp_id` or `origins` is neither written nor derivable from
    /// `server.public_url`.
    package var effective: PasskeyRelyingPartySettings? {
        let publicOrigin = publicURL.flatMap(Self.origin(ofURL:))
        guard let rpID = rpID ?? publicOrigin.flatMap(Self.host(ofWebOrigin:)),
            let origins = origins ?? publicOrigin.map({ [$0] })
        else { return nil }
        return PasskeyRelyingPartySettings(
            rpID: rpID, rpName: rpName ?? rpID, origins: origins, userVerification: userVerification ?? .required,
            attestation: attestation ?? .none)
    }

    /// `scheme://host[:port]` of an absolute URL (its path, query and fragment dropped), lowercased.
    package static func origin(ofURL url: String) -> String? {
        guard let separator = url.range(of: "://") else { return nil }
        let rest = url[separator.upperBound...]
        let end = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        guard end > rest.startIndex else { return nil }
        return (String(url[..<separator.upperBound]) + String(rest[..<end])).lowercased()
    }

    /// The host of a web origin `scheme://host[:port]` (brackets of an IPv6 literal kept off), or `nil` for an app
    /// origin or anything else.
    package static func host(ofWebOrigin origin: String) -> String? {
        guard origin.hasPrefix("https://") || origin.hasPrefix("http://"), let separator = origin.range(of: "://")
        else { return nil }
        let authority = origin[separator.upperBound...]
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            return String(authority[authority.index(after: authority.startIndex)..<close])
        }
        guard let colon = authority.lastIndex(of: ":") else { return String(authority) }
        return String(authority[..<colon])
    }
}
