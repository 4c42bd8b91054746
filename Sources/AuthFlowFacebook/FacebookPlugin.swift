public import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE

/// Facebook Login: plain OAuth 2.0 with a GET token endpoint and the Graph `/me` profile.
///
/// Facts (docs/providers.md, "Facebook"; Meta's documentation): the code exchange is a GET with `client_id`,
/// `redirect_uri`, `client_secret` and `code` in the query (`client_secret_get`); the profile is
/// `GET /me?fields=id,name,email` with the access token and `appsecret_proof` = hex(HMAC-SHA256(key: app secret,
/// message: access token)); PKCE (S256) is accepted and on by default. Facebook does not say an email is verified, so
/// `VerifiedIdentity.emailVerified` is `false` for Facebook.
public struct FacebookPlugin: ProviderPlugin {
    /// The Graph API version in the default endpoints.
    package let graphVersion: String

    /// Creates the plugin for a Graph API version (default `v19.0`).
    public init(graphVersion: String = "v19.0") {
        self.graphVersion = graphVersion
    }

    /// The versioned login dialog, token and `/me` endpoints; `email public_profile`; emails never linkable (the
    /// Graph API states no verification of `email`, docs/providers.md, "Facebook"). Native sign-in: Limited
    /// Login's `AuthenticationToken` has the app id as `aud` and is verified offline against Limited Login's
    /// issuer `https://www.facebook.com` and keys at `limited.facebook.com` (the `www` JWKS has served stale
    /// keys), not through Graph.
    public var about: ProviderDescription {
        var description = ProviderDescription(
            type: "facebook", displayName: "Facebook",
            endpoints: ProviderEndpoints(
                authorization: "https://www.facebook.com/\(graphVersion)/dialog/oauth",
                token: "https://graph.facebook.com/\(graphVersion)/oauth/access_token",
                userinfo: "https://graph.facebook.com/\(graphVersion)/me"),
            scopes: ["email", "public_profile"],
            emailLinkability: .never(reason: "Facebook's Graph API states no verification of the email"))
        description.nativeSignIn = NativeSignInDescription(
            audience: .nativeClient,
            tokenSource: ("https://www.facebook.com", "https://limited.facebook.com/.well-known/oauth/openid/jwks/"))
        return description
    }

    /// The Graph `/me` request and mapping (`FacebookIdentity`).
    public var identity: any IdentityStrategy { FacebookIdentity() }

    /// The GET token request and the long-lived-token exchange (`FacebookTokenEndpoint`).
    public var tokenEndpoint: any TokenEndpointStrategy { FacebookTokenEndpoint() }

    /// Facebook's data-deletion and deauthorization callbacks (`FacebookEvents`).
    public var events: (any ProviderEventHandling)? { FacebookEvents() }

    /// pkce optional, on by default; oidc, jwt_client_auth and form_post unsupported.
    public func support(for capability: Capability, settings: ProviderSettings) -> CapabilitySupport {
        switch capability {
        case .pkce:
            .optional(default: true)
        case .oidc:
            .unsupported(
                reason: "Facebook's authorization-code flow returns no id_token (its OIDC code flow is still in "
                    + "testing); AuthFlow integrates Facebook as OAuth 2.0 with the Graph /me profile")
        case .jwtClientAuth:
            .unsupported(reason: "Facebook authenticates apps with the app secret only")
        case .formPost:
            .unsupported(reason: "Facebook's login dialog returns the code as a query-string (GET) callback")
        }
    }

    /// hex(HMAC-SHA256(key: app secret, message: access token)), Graph's `appsecret_proof`.
    package static func appSecretProof(appSecret: String, accessToken: String) -> String {
        Hex.encode(Digest.hmacSHA256(key: Array(appSecret.utf8), message: Array(accessToken.utf8)))
    }
}

/// Facebook's token endpoint: a GET with the secret in the query, and the long-lived-token exchange.
struct FacebookTokenEndpoint: LongLivedTokenExchanging {
    /// A GET token request with the secret in the query.
    func method(capabilities: Set<Capability>) -> ClientAuthentication { .clientSecretGet }

    /// `grant_type=fb_exchange_token&fb_exchange_token=…`: Facebook issues no refresh tokens; a short-lived
    /// user token (hours) is traded at the token endpoint for one of about 60 days (docs/providers.md, "Facebook").
    func longLivedTokenParameters(accessToken: String) -> [(String, String)]? {
        [("grant_type", "fb_exchange_token"), ("fb_exchange_token", accessToken)]
    }
}

/// Facebook's identity: the Graph `/me` profile, fetched with `appsecret_proof`.
struct FacebookIdentity: IdentityStrategy {
    /// `GET /me?fields=id,name,email&appsecret_proof=…` with the access token as a Bearer token (fields are
    /// added unless the configured endpoint already names them).
    ///
    /// - Throws: `SignInError` with `userinfo_error` when no userinfo endpoint is known.
    func userinfoRequests(for provider: ResolvedProvider, accessToken: String) throws(SignInError)
        -> [HTTPClientRequest]
    {
        guard var url = provider.endpoints.userinfo else {
            throw SignInError(.userinfoError, "expected a Graph /me endpoint, found none", provider: provider.name)
        }
        var query: [String] = []
        if !url.contains("fields=") { query.append("fields=id,name,email") }
        if let secret = provider.settings.clientSecret?.value {
            query.append(
                "appsecret_proof=" + FacebookPlugin.appSecretProof(appSecret: secret, accessToken: accessToken))
        }
        if !query.isEmpty { url += (url.contains("?") ? "&" : "?") + query.joined(separator: "&") }
        var request = HTTPClientRequest(method: "GET", url: url)
        request.headers["Accept"] = "application/json"
        request.setBearer(accessToken)
        return [request]
    }

    /// `id` (string) as subject, `name`, `email` (not marked verified).
    ///
    /// - Throws: `SignInError` with `userinfo_error` when `id` is missing.
    func identity(fromUserinfo responses: [JSONValue], provider: ResolvedProvider) throws(SignInError)
        -> VerifiedIdentity
    {
        let json = responses.first ?? .null
        guard let object = json.objectValue, let id = object["id"]?.stringValue, !id.isEmpty else {
            throw SignInError(
                .userinfoError, "expected a Graph /me object with a non-empty string 'id', found none",
                provider: provider.name, claim: "id")
        }
        return VerifiedIdentity(
            provider: provider.name, subject: id, email: object["email"]?.stringValue, emailVerified: false,
            name: object["name"]?.stringValue, source: .userinfo, rawClaims: object)
    }
}
