public import AuthFlowHTTP
public import AuthFlowJOSE
public import Foundation

/// Describes how one kind of provider (a `type:` in `providers.yaml`) differs from the common flow.
///
/// A plugin supplies data and small strategies; ``OAuthFlow`` runs the flow. Every requirement except
/// ``type``, ``support(for:settings:)``, ``defaultEndpoints`` and ``clientAuthentication(capabilities:)``
/// has a default (see `ProviderPlugin+Defaults.swift`), so an application's own plugin is a few lines:
///
/// ```swift
/// struct CorpPlugin: ProviderPlugin {
///     var type: String { "corp" }
///     func support(for capability: Capability, settings: ProviderSettings) -> CapabilitySupport {
///         capability == .pkce ? .required : .unsupported(reason: "Corp SSO is plain OAuth 2.0")
///     }
///     var defaultEndpoints: ProviderEndpoints {
///         ProviderEndpoints(authorization: "https://sso.corp.example/authorize",
///                           token: "https://sso.corp.example/token",
///                           userinfo: "https://sso.corp.example/me")
///     }
///     func clientAuthentication(capabilities: Set<Capability>) -> ClientAuthentication { .clientSecretBasic }
/// }
/// var registry = ProviderRegistry.standard
/// registry.register(CorpPlugin())
/// ```
public protocol ProviderPlugin: Sendable {
    /// The `type:` value this plugin answers to, e.g. `"apple"`.
    var type: String { get }

    /// A human-readable provider name for messages and reports, e.g. `"Apple"`.
    var displayName: String { get }

    /// The plugin to resolve one provider's `settings` with, after any asynchronous set-up it needs (the
    /// generic OpenID Connect plugin fetches the issuer's discovery document here). Called by
    /// ``ProviderRegistry/resolve(_:httpClient:credentials:)``; the default returns `self`.
    ///
    /// - Throws: ``ConfigurationError`` naming the provider's settings when the set-up fails.
    func prepared(for settings: ProviderSettings, context: ProviderPreparation) async throws(ConfigurationError)
        -> any ProviderPlugin

    /// Whether `settings` can only be resolved after ``prepared(for:context:)`` (e.g. an undiscovered generic
    /// OpenID Connect plugin). The synchronous
    /// ``ProviderRegistry/resolve(_:credentials:)`` refuses such a provider with a
    /// ``ResolutionIssue/Kind/discoveryRequired`` issue naming the asynchronous entry; the default is `false`.
    func requiresPreparation(for settings: ProviderSettings) -> Bool

    /// How the provider is asked for a refresh token (reports advise it when tokens are stored); default
    /// ``RefreshTokenRequest/none``.
    var refreshTokenRequest: RefreshTokenRequest { get }

    /// How the provider supports `capability`; may depend on the settings (Apple requires `form_post` when
    /// the `name` or `email` scope is requested).
    func support(for capability: Capability, settings: ProviderSettings) -> CapabilitySupport

    /// The provider's endpoints before `endpoints:` overrides.
    var defaultEndpoints: ProviderEndpoints { get }

    /// The expected id_token issuer when configuration sets no `issuer:`.
    var defaultIssuer: String? { get }

    /// Scopes requested when configuration sets no `scopes:` (`openid` is added when `oidc` is on).
    func defaultScopes(capabilities: Set<Capability>) -> [String]

    /// Every `iss` value accepted for the configured issuer (Google also accepts `accounts.google.com`).
    func acceptedIssuers(for issuer: String) -> Set<String>

    /// The template the configured `issuer` is, for a provider whose tokens name their own tenant in `iss`
    /// (Microsoft's `{tenantid}`, filled with the token's `tid`); `nil` compares `iss` exactly, as by default.
    func issuerTemplate(for issuer: String) -> IssuerTemplate?

    /// The id_token signature algorithms accepted (HMAC and `none` are always refused).
    var idTokenAlgorithms: Set<JWSAlgorithm> { get }

    /// How the id_token must carry the nonce.
    var noncePolicy: NoncePolicy { get }

    /// How the client authenticates at the token endpoint, given the enabled capabilities.
    func clientAuthentication(capabilities: Set<Capability>) -> ClientAuthentication

    /// Settings keys that must be present, given the enabled capabilities (`client_id` is always required).
    func requiredSettings(capabilities: Set<Capability>) -> [ProviderSettingKey]

    /// Further checks of the settings (e.g. that a private key parses); returns every problem found.
    func validate(_ settings: ProviderSettings, capabilities: Set<Capability>) -> [ConfigurationIssue]

    /// Extra authorization-request parameters (never overriding the ones the flow sets).
    func authorizationParameters(for provider: ResolvedProvider) -> [(String, String)]

    /// Mints the signed client secret, valid for `lifetime` seconds from `now`, when the client authentication is
    /// ``ClientAuthentication/es256ClientSecretJWT``.
    ///
    /// - Throws: ``SignInError`` with code `client_authentication_failed`.
    func clientSecretJWT(for provider: ResolvedProvider, now: Date, lifetime: Int64) throws(SignInError) -> String

    /// When the plugin's identities carry a linkable email (``VerifiedIdentity/emailLinkable``), for reports;
    /// the mapping itself sets the flag per sign-in.
    var emailLinkability: EmailLinkability { get }

    /// Whether an OpenID Connect sign-in also calls the userinfo endpoint (its `sub` must then match).
    var fetchesUserinfoWithIDToken: Bool { get }

    /// The token-endpoint parameters that trade a short-lived access token for a long-lived one, for a
    /// provider without refresh tokens (Facebook: `grant_type=fb_exchange_token`); `nil` when the provider
    /// has no such exchange. The client authenticates as at the code exchange.
    func longLivedTokenParameters(accessToken: String) -> [(String, String)]?

    /// Whether the provider names itself in every authorization response with an `iss` parameter
    /// (RFC 9207, `authorization_response_iss_parameter_supported`), so that a callback without one is
    /// refused. An `iss` parameter that is present is checked whatever this says.
    var sendsIssuerInAuthorizationResponse: Bool { get }

    /// Builds the userinfo (profile) request for an access token.
    ///
    /// - Throws: ``SignInError`` with code `userinfo_error` when no request can be built.
    func userinfoRequest(for provider: ResolvedProvider, accessToken: String) throws(SignInError)
        -> HTTPClientRequest

    /// Every profile request of a sign-in, fetched in order (GitHub: `/user`, then `/user/emails`); the default
    /// is ``userinfoRequest(for:accessToken:)`` alone.
    ///
    /// - Throws: ``SignInError`` with code `userinfo_error` when no request can be built.
    func userinfoRequests(for provider: ResolvedProvider, accessToken: String) throws(SignInError)
        -> [HTTPClientRequest]

    /// Maps the JSON bodies of ``userinfoRequests(for:accessToken:)``, in order, to an identity; the default maps
    /// the first with ``identity(fromUserinfo:provider:)``.
    ///
    /// - Throws: ``SignInError`` with code `userinfo_error` when the subject is missing.
    func identity(fromUserinfoResponses responses: [JSONValue], provider: ResolvedProvider) throws(SignInError)
        -> VerifiedIdentity

    /// The request that revokes `token`, for a provider whose revocation is not RFC 7009 (GitHub deletes the
    /// grant); `nil`, the default, sends the RFC 7009 form.
    func revocationRequest(for provider: ResolvedProvider, token: String) -> HTTPClientRequest?

    /// Maps a userinfo JSON body to an identity.
    ///
    /// - Throws: ``SignInError`` with code `userinfo_error` when the subject is missing.
    func identity(fromUserinfo json: JSONValue, provider: ResolvedProvider) throws(SignInError) -> VerifiedIdentity

    /// Maps verified id_token claims to an identity.
    ///
    /// - Throws: ``SignInError`` with code `id_token_invalid` when the subject is missing.
    func identity(fromIDToken claims: JWTClaims, provider: ResolvedProvider) throws(SignInError) -> VerifiedIdentity

    /// Reads unsigned profile data from the callback (Apple's first-login `user` field); `nil` when none.
    ///
    /// - Throws: ``SignInError`` with `invalid_user_field` when the data is present but unreadable; the
    ///   sign-in is then refused before anything is stored.
    func unverifiedProfile(from parameters: CallbackParameters, provider: ResolvedProvider) throws(SignInError)
        -> UnverifiedProfile?

    /// Whether the provider sends its ``UnverifiedProfile`` only once (Apple's first-login name), so an
    /// application keeps it across a failed attempt until the sign-in completes. Only such providers make the
    /// server park, carry and take pending profiles (``ProviderEventStore/putPendingProfile(_:)``); `false` by
    /// default.
    var keepsUnverifiedProfile: Bool { get }

    /// The endpoints under `/auth/{name}/` where the provider sends its server-to-server events (Apple's
    /// notifications, Facebook's data deletion, Google RISC, back-channel logout); none by default.
    func eventEndpoints(for provider: ResolvedProvider) -> [ProviderEventEndpoint]

    /// Verifies one request to a declared event endpoint and turns it into account actions, the idempotency
    /// key they are applied once under, and the answer. Verify everything before returning: the server
    /// applies what is returned.
    ///
    /// - Throws: ``ProviderEventError`` when the request is refused (nothing is applied).
    func handleEvent(_ request: ProviderEventRequest, context: ProviderEventContext) async throws(ProviderEventError)
        -> ProviderEventOutcome
}
