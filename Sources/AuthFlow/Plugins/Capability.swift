/// One of the four switches that decide every difference between providers' sign-in flows.
///
/// The raw values are the keys of a provider's `capabilities:` map in `providers.yaml`.
public enum Capability: String, Sendable, Hashable, CaseIterable, Comparable, CustomStringConvertible {
    /// PKCE (RFC 7636) with the S256 method: the verifier stays server-side and is sent at the token exchange.
    case pkce
    /// OpenID Connect: `openid` scope and a nonce; identity comes from a locally verified `id_token`.
    case oidc
    /// The client authenticates with a freshly minted signed JWT (Apple's ES256 `client_secret`).
    case jwtClientAuth = "jwt_client_auth"
    /// `response_mode=form_post`: the callback arrives as a cross-site POST.
    case formPost = "form_post"

    /// The YAML key.
    public var description: String { rawValue }

    /// Orders capabilities as declared (pkce, oidc, jwt_client_auth, form_post), for stable output.
    public static func < (lhs: Capability, rhs: Capability) -> Bool {
        let order = Capability.allCases
        return (order.firstIndex(of: lhs) ?? 0) < (order.firstIndex(of: rhs) ?? 0)
    }
}
