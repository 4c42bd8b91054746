public import AuthFlow
public import AuthFlowJOSE

/// Google: OpenID Connect by default (id_token verified locally, no userinfo call), PKCE by default.
///
/// Facts (docs/providers.md, "Google"; Google's documentation): issuer `https://accounts.google.com`, but tokens may
/// carry the scheme-less `accounts.google.com`, so both are accepted (for Google only); RS256 keys from the v3 certs
/// JWKS; `client_secret_post`. With `oidc: false` the identity comes from the userinfo endpoint called with the access
/// token as a Bearer token: a plain OAuth 2.0 integration, by toggling one switch.
public struct GooglePlugin: ProviderPlugin, ClientAuthenticationChoosing {
    /// Google's issuer as discovery states it.
    package static let issuer = "https://accounts.google.com"
    /// The scheme-less spelling Google's own libraries also accept.
    package static let legacyIssuer = "accounts.google.com"

    /// Creates the plugin.
    public init() {}

    /// `"google"`.
    public var type: String { "google" }

    /// `"Google"`.
    public var displayName: String { "Google" }

    /// pkce and oidc optional, on by default; jwt_client_auth and form_post unsupported.
    public func support(for capability: Capability, settings: ProviderSettings) -> CapabilitySupport {
        switch capability {
        case .pkce, .oidc:
            .optional(default: true)
        case .jwtClientAuth:
            .unsupported(
                reason: "Google authenticates web clients with a static client_secret (client_secret_post or "
                    + "client_secret_basic); AuthFlow mints no JWT client assertion for Google")
        case .formPost:
            .unsupported(reason: "AuthFlow receives Google's authorization code as a query-string (GET) callback")
        }
    }

    /// Google's authorization, token, userinfo, certs (v3 JWKS) and revoke endpoints.
    public var defaultEndpoints: ProviderEndpoints {
        ProviderEndpoints(
            authorization: "https://accounts.google.com/o/oauth2/v2/auth", token: "https://oauth2.googleapis.com/token",
            userinfo: "https://openidconnect.googleapis.com/v1/userinfo",
            jwks: "https://www.googleapis.com/oauth2/v3/certs", revocation: "https://oauth2.googleapis.com/revoke")
    }

    /// `https://accounts.google.com`.
    public var defaultIssuer: String? { Self.issuer }

    /// `email` and `profile` (`openid` is added with oidc).
    public func defaultScopes(capabilities: Set<Capability>) -> [String] { ["email", "profile"] }

    /// `access_type=offline` (docs/providers.md, "Google"): without it Google issues no refresh token.
    public var refreshTokenRequest: RefreshTokenRequest {
        .authorizationParameter(name: "access_type", value: "offline")
    }

    /// Both spellings for Google's own issuer; exactly the configured issuer otherwise.
    public func acceptedIssuers(for issuer: String) -> Set<String> {
        issuer == Self.issuer ? [Self.issuer, Self.legacyIssuer] : [issuer]
    }

    /// RS256 only.
    public var idTokenAlgorithms: Set<JWSAlgorithm> { [.rs256] }

    /// `client_secret_post`.
    public func clientAuthentication(capabilities: Set<Capability>) -> ClientAuthentication { .clientSecretPost }

    /// `client_secret_post` (the default) or `client_secret_basic`, the methods Google's discovery document lists.
    public func clientAuthenticationChoice(for settings: ProviderSettings, capabilities: Set<Capability>)
        -> ClientAuthenticationChoice
    {
        ClientAuthenticationChoice(allowed: [.clientSecretPost, .clientSecretBasic], defaultMethod: .clientSecretPost)
    }
}
