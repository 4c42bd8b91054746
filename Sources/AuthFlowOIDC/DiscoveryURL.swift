import AuthFlow
import Foundation

/// The URL rule for issuers and endpoints learnt from discovery: absolute `https://`, or `http://` on a
/// loopback host only (`localhost`, `127.0.0.0/8`, `[::1]`), no `user:password@`, no fragment.
enum DiscoveryURL {
    /// `nil` when `text` is acceptable, else what is wrong with it (without echoing a query string).
    static func problem(with text: String, allowsQuery: Bool) -> String? {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            let host = components.host, !host.isEmpty
        else { return "expected an absolute https:// URL, found one that does not parse" }
        guard scheme == "https" || scheme == "http" else {
            return "expected an https:// URL, found the scheme '\(scheme)'"
        }
        if components.user != nil || components.password != nil {
            return "expected a URL without user:password@, found credentials in it"
        }
        if components.fragment != nil { return "expected a URL without a #fragment, found one" }
        if !allowsQuery, components.query != nil { return "expected a URL without a ?query, found one" }
        if scheme == "http", !isLoopback(host) {
            return "expected an https:// URL (http:// is allowed only on localhost, 127.0.0.0/8 and [::1]), "
                + "found http:// on host '\(host)'"
        }
        return nil
    }

    /// Whether `host` is `localhost`, an address in `127.0.0.0/8`, or `::1` (with or without brackets).
    static func isLoopback(_ host: String) -> Bool { LoopbackHost.contains(host) }

    /// The discovery document URL of `issuer`: a terminating `/` removed, then
    /// `/.well-known/openid-configuration` appended (OpenID Connect Discovery §4).
    static func documentURL(for issuer: String) -> String {
        var base = Substring(issuer)
        while base.hasSuffix("/") { base = base.dropLast() }
        return base + "/.well-known/openid-configuration"
    }
}
