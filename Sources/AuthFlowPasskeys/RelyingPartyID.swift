/// The rules a relying party id follows against the hosts of the origins it serves.
///
/// WebAuthn Level 3 §5.1.3 (https://www.w3.org/TR/webauthn-3/#rp-id) lets a page use an RP ID equal to its
/// origin's effective domain or a registrable domain suffix of it (HTML, "is a registrable domain suffix of or
/// is equal to"). Without the public suffix list at hand the check here is the structural one: equal, or the host
/// ends with "." followed by the RP ID, which must have at least two labels (a bare top-level name can never be
/// registrable); an IP address only ever matches itself. A public suffix such as `co.uk` passes this check and is
/// refused by every browser.
enum RelyingPartyID {
    /// Whether `rpID` may serve an origin whose host is `host`.
    static func covers(host: String, rpID: String) -> Bool {
        let host = host.lowercased()
        if host == rpID { return true }
        if isIPAddress(host) { return false }
        return host.hasSuffix("." + rpID) && problem(rpID) == nil
    }

    /// What is wrong with `rpID` on its own, or `nil`.
    static func problem(_ rpID: String) -> String? {
        if rpID == "localhost" || isIPAddress(rpID) { return nil }
        guard rpID.contains(".") else {
            return "is a single label: a relying party id is a registrable domain such as example.com"
        }
        return nil
    }

    /// Dotted decimal IPv4, or anything with a `:` (IPv6).
    static func isIPAddress(_ host: String) -> Bool {
        if host.contains(":") { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isNumber) }
    }
}
