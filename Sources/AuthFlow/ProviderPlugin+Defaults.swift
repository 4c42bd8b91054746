public import AuthFlowHTTP
public import AuthFlowJOSE
public import Foundation

extension ProviderPlugin {
    /// Defaults to ``type``.
    public var displayName: String { type }

    /// No set-up: resolves with `self`.
    public func prepared(for settings: ProviderSettings, context: ProviderPreparation) async throws(ConfigurationError)
        -> any ProviderPlugin
    { self }

    /// Resolves without preparation.
    public func requiresPreparation(for settings: ProviderSettings) -> Bool { false }

    /// Nothing to configure.
    public var refreshTokenRequest: RefreshTokenRequest { .none }

    /// No default issuer.
    public var defaultIssuer: String? { nil }

    /// No default scopes (the flow adds `openid` when `oidc` is on).
    public func defaultScopes(capabilities: Set<Capability>) -> [String] { [] }

    /// Exactly the configured issuer.
    public func acceptedIssuers(for issuer: String) -> Set<String> { [issuer] }

    /// None: `iss` is compared exactly.
    public func issuerTemplate(for issuer: String) -> IssuerTemplate? { nil }

    /// RS256 only.
    public var idTokenAlgorithms: Set<JWSAlgorithm> { [.rs256] }

    /// The nonce is always required.
    public var noncePolicy: NoncePolicy { .required }

    /// `client_secret` (in addition to `client_id`), unless the client authenticates with a signed JWT.
    public func requiredSettings(capabilities: Set<Capability>) -> [ProviderSettingKey] {
        clientAuthentication(capabilities: capabilities) == .es256ClientSecretJWT ? [] : [.clientSecret]
    }

    /// No further checks.
    public func validate(_ settings: ProviderSettings, capabilities: Set<Capability>) -> [ConfigurationIssue] { [] }

    /// No extra parameters.
    public func authorizationParameters(for provider: ResolvedProvider) -> [(String, String)] { [] }

    /// Refuses: the plugin mints no signed client secret.
    public func clientSecretJWT(for provider: ResolvedProvider, now: Date, lifetime: Int64) throws(SignInError)
        -> String
    {
        throw SignInError(
            .clientAuthenticationFailed,
            "provider type \(type) does not mint a signed client secret (expected a plugin that implements "
                + "clientSecretJWT(for:now:lifetime:))",
            provider: provider.name)
    }

    /// When `email_verified` is true (the default mappings).
    public var emailLinkability: EmailLinkability { .whenVerified(by: "email_verified") }

    /// OpenID Connect sign-ins take the identity from the id_token alone.
    public var fetchesUserinfoWithIDToken: Bool { false }

    /// No long-lived-token exchange.
    public func longLivedTokenParameters(accessToken: String) -> [(String, String)]? { nil }

    /// The built-in providers do not promise an RFC 9207 `iss` parameter.
    public var sendsIssuerInAuthorizationResponse: Bool { false }

    /// `GET` the userinfo endpoint with the access token as a Bearer token.
    public func userinfoRequest(for provider: ResolvedProvider, accessToken: String) throws(SignInError)
        -> HTTPClientRequest
    {
        guard let url = provider.endpoints.userinfo else {
            throw SignInError(
                .userinfoError, "expected a userinfo endpoint for provider '\(provider.name)', found none",
                provider: provider.name)
        }
        var request = HTTPClientRequest(method: "GET", url: url)
        request.headers["Accept"] = "application/json"
        request.setBearer(accessToken)
        return request
    }

    /// ``userinfoRequest(for:accessToken:)`` alone.
    public func userinfoRequests(for provider: ResolvedProvider, accessToken: String) throws(SignInError)
        -> [HTTPClientRequest]
    {
        [try userinfoRequest(for: provider, accessToken: accessToken)]
    }

    /// The first body, mapped with ``identity(fromUserinfo:provider:)``.
    public func identity(fromUserinfoResponses responses: [JSONValue], provider: ResolvedProvider)
        throws(SignInError) -> VerifiedIdentity
    {
        guard let first = responses.first else {
            throw SignInError(
                .userinfoError, "expected a profile from the userinfo endpoint, found none", provider: provider.name)
        }
        return try identity(fromUserinfo: first, provider: provider)
    }

    /// None: revocation is RFC 7009.
    public func revocationRequest(for provider: ResolvedProvider, token: String) -> HTTPClientRequest? { nil }

    /// OpenID Connect standard claims: `sub`, `email`, `email_verified` (`true` or `"true"`), `name`.
    public func identity(fromUserinfo json: JSONValue, provider: ResolvedProvider) throws(SignInError)
        -> VerifiedIdentity
    {
        guard let object = json.objectValue else {
            throw SignInError(
                .userinfoError, "expected a JSON object from the userinfo endpoint, found another JSON value",
                provider: provider.name)
        }
        guard let subject = object["sub"]?.stringValue, !subject.isEmpty else {
            throw SignInError(
                .userinfoError, "expected a non-empty string 'sub' in the userinfo response, found none",
                provider: provider.name, claim: "sub")
        }
        return VerifiedIdentity(
            provider: provider.name, subject: subject, email: object["email"]?.stringValue,
            emailVerified: IdentityClaims.flag(object["email_verified"]) ?? false,
            name: IdentityClaims.displayName(object), source: .userinfo, rawClaims: object)
    }

    /// OpenID Connect standard claims: `sub`, `email`, `email_verified` (`true` or `"true"`), `name`.
    public func identity(fromIDToken claims: JWTClaims, provider: ResolvedProvider) throws(SignInError)
        -> VerifiedIdentity
    {
        try IdentityClaims.identity(
            fromIDToken: claims, subject: IdentityClaims.subject(ofIDToken: claims, provider: provider),
            provider: provider)
    }

    /// No profile sent only once: nothing to keep.
    public var keepsUnverifiedProfile: Bool { false }

    /// No unsigned profile data.
    public func unverifiedProfile(from parameters: CallbackParameters, provider: ResolvedProvider)
        -> UnverifiedProfile?
    {
        nil
    }

    /// No event endpoints.
    public func eventEndpoints(for provider: ResolvedProvider) -> [ProviderEventEndpoint] { [] }

    /// Refuses: the plugin declares no event endpoints.
    public func handleEvent(_ request: ProviderEventRequest, context: ProviderEventContext)
        async throws(ProviderEventError) -> ProviderEventOutcome
    {
        throw ProviderEventError(
            code: "not_found", "expected an event endpoint of provider type \(type), found none at this path",
            status: 404)
    }
}
