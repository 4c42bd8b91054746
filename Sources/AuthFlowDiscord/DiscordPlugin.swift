public import AuthFlow
import AuthFlowJOSE

/// Discord: OAuth 2.0 with PKCE and the `/users/@me` profile.
///
/// Facts (docs/providers.md, "GitLab, LinkedIn, Slack, Discord"; Discord's API documentation): authorization
/// `https://discord.com/oauth2/authorize`, token `https://discord.com/api/oauth2/token` (HTTP Basic or the
/// secret in the body), revocation `https://discord.com/api/oauth2/token/revoke` (revoking one token revokes the
/// whole authorization); PKCE with S256; OpenID Connect is documented only for the Social SDK, so the
/// identity is `GET https://discord.com/api/users/@me`: `id` (a snowflake string) as the subject, `email`
/// (scope `email`, may be null) trusted only when `verified` is true, `global_name` or `username` as the name.
/// Access tokens last 7 days and come with a refresh token.
public struct DiscordPlugin: ProviderPlugin {
    /// Creates the plugin.
    public init() {}

    /// Discord's authorize, token, `/users/@me` and revoke endpoints; `identify email`; an email is linkable
    /// when `verified` is true.
    public var about: ProviderDescription {
        ProviderDescription(
            type: "discord", displayName: "Discord",
            endpoints: ProviderEndpoints(
                authorization: "https://discord.com/oauth2/authorize", token: "https://discord.com/api/oauth2/token",
                userinfo: "https://discord.com/api/users/@me",
                revocation: "https://discord.com/api/oauth2/token/revoke"),
            scopes: ["identify", "email"], emailLinkability: .whenVerified(by: "verified"))
    }

    /// The `/users/@me` mapping (`DiscordIdentity`).
    public var identity: any IdentityStrategy { DiscordIdentity() }

    /// `client_secret_post`.
    public var tokenEndpoint: any TokenEndpointStrategy { StandardTokenEndpoint(.clientSecretPost) }

    /// pkce optional (on); oidc, jwt_client_auth and form_post unsupported.
    public func support(for capability: Capability, settings: ProviderSettings) -> CapabilitySupport {
        switch capability {
        case .pkce: .optional(default: true)
        case .oidc:
            .unsupported(reason: "Discord documents OpenID Connect only for its Social SDK, not for web sign-in")
        case .jwtClientAuth:
            .unsupported(reason: "Discord authenticates clients with HTTP Basic or the secret in the form body")
        case .formPost: .unsupported(reason: "Discord returns the code as a query-string (GET) callback")
        }
    }
}

/// Discord's identity: the `/users/@me` profile.
struct DiscordIdentity: IdentityStrategy {
    /// `id` as subject, `email` verified only when `verified` is `true`, `global_name` or `username`.
    ///
    /// - Throws: `SignInError` `userinfo_error` naming the member when `id` is missing or not a string, or
    ///   `verified` is not a boolean.
    func identity(fromUserinfo responses: [JSONValue], provider: ResolvedProvider) throws(SignInError)
        -> VerifiedIdentity
    {
        let json = responses.first ?? .null
        guard let object = json.objectValue else {
            throw SignInError(
                .userinfoError, "expected a JSON object from /users/@me, found another JSON value",
                provider: provider.name)
        }
        guard let id = object["id"]?.stringValue, !id.isEmpty else {
            throw SignInError(
                .userinfoError, "expected /users/@me to return a non-empty string id, found none or another type",
                provider: provider.name, claim: "id")
        }
        var verified = false
        switch object["verified"] {
        case .bool(let flag)?: verified = flag
        case nil, .null?: break
        default:
            throw SignInError(
                .userinfoError, "expected /users/@me 'verified' to be a boolean, found another type",
                provider: provider.name, claim: "verified")
        }
        let name = [object["global_name"]?.stringValue, object["username"]?.stringValue]
            .compactMap { $0 }.first { !$0.isEmpty }
        return VerifiedIdentity(
            provider: provider.name, subject: id, email: object["email"]?.stringValue, emailVerified: verified,
            name: name, source: .userinfo, rawClaims: object)
    }
}
