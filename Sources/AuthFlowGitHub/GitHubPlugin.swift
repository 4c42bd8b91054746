public import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE

/// GitHub (OAuth apps and GitHub Apps acting for a user): OAuth 2.0 with PKCE, `/user` and `/user/emails`.
///
/// Facts (docs/providers.md, "GitHub"; GitHub's documentation): authorization
/// `https://github.com/login/oauth/authorize`, token `https://github.com/login/oauth/access_token` with the
/// secret in the body; the token answer is form-encoded unless the request sends `Accept: application/json`
/// (every AuthFlow token request does), and errors come with HTTP 200 and an `error` member (refused like any
/// error body). No OpenID Connect. The callback may carry `iss=https://github.com/login/oauth` (RFC 9207),
/// checked when present. PKCE: S256 only, since 2025-07. REST calls need a `User-Agent`. The stable key is
/// `GET https://api.github.com/user`'s numeric `id`; `login` can be renamed, and `email` there is the public
/// one, often null, so `GET /user/emails` (scope `user:email`) gives the address: the entry that is
/// `primary` **and** `verified`, else none. GitHub App user tokens expire (8 h) with rotating refresh tokens;
/// OAuth app tokens do not. Disconnecting deletes the grant: `DELETE /applications/{client_id}/grant` with HTTP
/// Basic `client_id:client_secret` and the JSON body `{"access_token": …}`.
public struct GitHubPlugin: ProviderPlugin, PreparedPlugin {
    /// The `iss` GitHub names itself with on the callback.
    package static let issuer = "https://github.com/login/oauth"
    /// Sent as `User-Agent` on REST calls, which GitHub refuses without one.
    package static let userAgent = "AuthFlow"

    /// `allowed_organizations` (lower-cased logins); `nil` admits members of any organization or none.
    package let allowedOrganizations: Set<String>?
    /// `allowed_teams` (lower-cased `org/team-slug`); `nil` admits members of any team or none.
    package let allowedTeams: Set<String>?

    /// Creates the plugin.
    public init() {
        allowedOrganizations = nil
        allowedTeams = nil
    }

    /// The plugin admitting only members of one of `organizations` and of one of `teams` (each when given).
    package init(organizations: [String]?, teams: [String]?) {
        allowedOrganizations = organizations.map { Set($0.map { $0.lowercased() }) }
        allowedTeams = teams.map { Set($0.map { $0.lowercased() }) }
    }

    /// Whether `/user/orgs` and `/user/teams` are read (and `read:org` asked for): when a rule needs them.
    var readsMemberships: Bool { allowedOrganizations != nil || allowedTeams != nil }

    /// GitHub's authorize, token, `/user` and grant-deletion endpoints (`{client_id}` is filled per request);
    /// the issuer `https://github.com/login/oauth`, the callback's `iss` when GitHub sends it; `read:user
    /// user:email`; an email is linkable when it is GitHub's primary and verified address.
    public var about: ProviderDescription {
        ProviderDescription(
            type: "github", displayName: "GitHub",
            endpoints: ProviderEndpoints(
                authorization: "https://github.com/login/oauth/authorize",
                token: "https://github.com/login/oauth/access_token", userinfo: "https://api.github.com/user",
                revocation: "https://api.github.com/applications/{client_id}/grant"),
            issuer: Self.issuer, scopes: ["read:user", "user:email"] + (readsMemberships ? ["read:org"] : []),
            emailLinkability: .whenVerified(by: "primary and verified in /user/emails"))
    }

    /// `/user` and `/user/emails`, and the memberships a rule needs (`GitHubIdentity`).
    public var identity: any IdentityStrategy { GitHubIdentity(plugin: self) }

    /// `client_secret_post` and the grant deletion (`GitHubTokenEndpoint`).
    public var tokenEndpoint: any TokenEndpointStrategy { GitHubTokenEndpoint() }

    /// Reads the provider's `allowed_organizations` and `allowed_teams` (`GitHubPreparation`,
    /// `GitHubPlugin+Organizations.swift`).
    package var preparation: any ProviderPreparing { GitHubPreparation() }

    /// pkce optional (on); oidc, jwt_client_auth and form_post unsupported.
    public func support(for capability: Capability, settings: ProviderSettings) -> CapabilitySupport {
        switch capability {
        case .pkce: .optional(default: true)
        case .oidc: .unsupported(reason: "GitHub has no OpenID Connect for user sign-in: it issues no id_token")
        case .jwtClientAuth: .unsupported(reason: "GitHub takes client_id and client_secret in the token request body")
        case .formPost: .unsupported(reason: "GitHub returns the code as a query-string (GET) callback")
        }
    }
}

/// GitHub's identity: `/user`, `/user/emails` and, when a rule needs them, the memberships.
struct GitHubIdentity: IdentityStrategy {
    /// The plugin whose `allowed_organizations` and `allowed_teams` apply.
    let plugin: GitHubPlugin

    /// `GET /user`, then `GET /user/emails` beside it, each with the token, a User-Agent and GitHub's JSON type.
    func userinfoRequests(for provider: ResolvedProvider, accessToken: String) throws(SignInError)
        -> [HTTPClientRequest]
    {
        guard let user = provider.endpoints.userinfo, !user.isEmpty else {
            throw SignInError(
                .userinfoError, "expected a userinfo endpoint for provider '\(provider.name)', found none",
                provider: provider.name)
        }
        let memberships = plugin.readsMemberships ? [user + "/orgs?per_page=100", user + "/teams?per_page=100"] : []
        return ([user, user + "/emails"] + memberships).map { url in
            var request = HTTPClientRequest(method: "GET", url: url)
            request.headers["Accept"] = "application/vnd.github+json"
            request.headers["User-Agent"] = GitHubPlugin.userAgent
            request.setBearer(accessToken)
            return request
        }
    }

    /// `id` (a number) as subject, `name` or `login`, and the primary verified address of `/user/emails`.
    ///
    /// - Throws: `SignInError` `userinfo_error` naming `id` when it is missing or not a number, or `emails`
    ///   when `/user/emails` is not a list.
    func identity(fromUserinfo responses: [JSONValue], provider: ResolvedProvider)
        throws(SignInError) -> VerifiedIdentity
    {
        guard let user = responses.first?.objectValue else {
            throw SignInError(
                .userinfoError, "expected a JSON object from GitHub's /user, found another JSON value",
                provider: provider.name)
        }
        guard let id = user["id"]?.int64Value, id > 0 else {
            throw SignInError(
                .userinfoError, "expected /user to return a positive numeric id, found none or another type",
                provider: provider.name, claim: "id")
        }
        var email: String?
        if responses.count > 1 {
            guard case .array(let entries) = responses[1] else {
                throw SignInError(
                    .userinfoError, "expected /user/emails to return a list, found another JSON value",
                    provider: provider.name, claim: "emails")
            }
            email =
                entries.first { entry in
                    entry["primary"]?.boolValue == true && entry["verified"]?.boolValue == true
                }?["email"]?.stringValue
        }
        let name = [user["name"]?.stringValue, user["login"]?.stringValue].compactMap { $0 }.first { !$0.isEmpty }
        let groups = plugin.readsMemberships ? try plugin.memberships(responses, provider: provider) : []
        return VerifiedIdentity(
            provider: provider.name, subject: String(id), email: email, emailVerified: email != nil, name: name,
            source: .userinfo, rawClaims: user, groups: groups)
    }
}

/// GitHub's token endpoint: `client_secret_post`, and revocation by deleting the grant.
struct GitHubTokenEndpoint: TokenEndpointStrategy {
    /// `client_secret_post`.
    func method(capabilities: Set<Capability>) -> ClientAuthentication { .clientSecretPost }

    /// `DELETE {revocation}` with `{client_id}` filled, HTTP Basic `client_id:client_secret`, and the token in a
    /// JSON body: the whole grant is deleted.
    func revocationRequest(for provider: ResolvedProvider, token: String) -> HTTPClientRequest? {
        guard let template = provider.endpoints.revocation, let secret = provider.settings.clientSecret?.value else {
            return nil
        }
        let clientID = FormURLEncoding.encode([("x", provider.clientID)]).dropFirst(2)
        var url = template
        if let range = url.firstRange(of: "{client_id}") { url.replaceSubrange(range, with: clientID) }
        var request = HTTPClientRequest(method: "DELETE", url: url)
        request.setBasicAuthorization(user: provider.clientID, password: secret)
        request.headers["Accept"] = "application/vnd.github+json"
        request.headers["User-Agent"] = GitHubPlugin.userAgent
        request.headers["Content-Type"] = "application/json"
        request.body = Array(JSONValue.object(["access_token": .string(token)]).serialized().utf8)
        return request
    }
}
