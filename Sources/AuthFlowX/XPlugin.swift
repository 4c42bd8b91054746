public import AuthFlow
import AuthFlowJOSE

/// X (Twitter) OAuth 2.0: required PKCE, HTTP Basic client authentication, `/2/users/me` profile.
///
/// Facts (docs/providers.md, "X"; X's documentation): no OpenID Connect (no id_token, discovery or JWKS); authorization
/// at `https://x.com/i/oauth2/authorize`, token at `https://api.x.com/2/oauth2/token` with `Authorization: Basic` for
/// confidential clients; the identity is the stable numeric `data.id` of `GET /2/users/me`, which needs both
/// `tweet.read` and `users.read`. `data.confirmed_email` (scope `users.email`) is a confirmed address.
public struct XPlugin: ProviderPlugin {
    /// Creates the plugin.
    public init() {}

    /// X's authorize, token, users/me and revoke endpoints; `users.read tweet.read` (both needed by
    /// `/2/users/me`); an email is linkable when `confirmed_email` is present (X confirmed it); the
    /// `offline.access` scope asks for a refresh token (docs/providers.md, "X").
    public var about: ProviderDescription {
        ProviderDescription(
            type: "x", displayName: "X",
            endpoints: ProviderEndpoints(
                authorization: "https://x.com/i/oauth2/authorize", token: "https://api.x.com/2/oauth2/token",
                userinfo: "https://api.x.com/2/users/me", revocation: "https://api.x.com/2/oauth2/revoke"),
            scopes: ["users.read", "tweet.read"], emailLinkability: .whenVerified(by: "confirmed_email"),
            refreshTokenRequest: .scope("offline.access"))
    }

    /// The `/2/users/me` mapping (`XIdentity`).
    public var identity: any IdentityStrategy { XIdentity() }

    /// HTTP Basic.
    public var tokenEndpoint: any TokenEndpointStrategy { StandardTokenEndpoint(.clientSecretBasic) }

    /// pkce required; oidc, jwt_client_auth and form_post unsupported.
    public func support(for capability: Capability, settings: ProviderSettings) -> CapabilitySupport {
        switch capability {
        case .pkce:
            .required
        case .oidc:
            .unsupported(reason: "X has no OpenID Connect: it issues no id_token and publishes no discovery or JWKS")
        case .jwtClientAuth:
            .unsupported(reason: "X authenticates confidential clients with HTTP Basic (client_id:client_secret) only")
        case .formPost:
            .unsupported(reason: "X returns the code as a query-string (GET) callback")
        }
    }

    /// Configured scopes must include `tweet.read` and `users.read`, or `/2/users/me` refuses the token.
    public func validate(_ settings: ProviderSettings, capabilities: Set<Capability>) -> [ConfigurationIssue] {
        guard let scopes = settings.scopes else { return [] }
        let missing = ["tweet.read", "users.read"].filter { !scopes.contains($0) }
        guard !missing.isEmpty else { return [] }
        return [
            ResolutionIssue.make(
                .invalidValue,
                "provider '\(settings.name)' (type x): expected scopes to include tweet.read and users.read "
                    + "(X's /2/users/me needs both), found \(missing.joined(separator: " and ")) missing",
                settings.location(of: "scopes"))
        ]
    }
}

/// X's identity: the `/2/users/me` profile.
struct XIdentity: IdentityStrategy {
    /// `data.id` as subject, `data.name`, and `data.confirmed_email` as a verified email when present.
    ///
    /// - Throws: `SignInError` with `userinfo_error` when `data.id` is missing.
    func identity(fromUserinfo responses: [JSONValue], provider: ResolvedProvider) throws(SignInError)
        -> VerifiedIdentity
    {
        let json = responses.first ?? .null
        guard let data = json["data"]?.objectValue, let id = data["id"]?.stringValue, !id.isEmpty else {
            throw SignInError(
                .userinfoError, "expected /2/users/me to return a non-empty string data.id, found none",
                provider: provider.name, claim: "data.id")
        }
        let email = data["confirmed_email"]?.stringValue
        return VerifiedIdentity(
            provider: provider.name, subject: id, email: email, emailVerified: email != nil,
            name: data["name"]?.stringValue, source: .userinfo, rawClaims: data)
    }
}
