public import AuthFlow
import AuthFlowJOSE

/// Google: OpenID Connect by default (id_token verified locally, no userinfo call), PKCE by default.
///
/// Facts (docs/providers.md, "Google"; Google's documentation): issuer `https://accounts.google.com`, but tokens may
/// carry the scheme-less `accounts.google.com`, so both are accepted (for Google only); RS256 keys from the v3 certs
/// JWKS; `client_secret_post`. With `oidc: false` the identity comes from the userinfo endpoint called with the access
/// token as a Bearer token: a plain OAuth 2.0 integration, by toggling one switch.
public struct GooglePlugin: ProviderPlugin, PreparedPlugin {
    /// Google's issuer as discovery states it.
    package static let issuer = "https://accounts.google.com"
    /// The scheme-less spelling Google's own libraries also accept.
    package static let legacyIssuer = "accounts.google.com"

    /// `hosted_domain`, lower-cased: the Workspace domain whose accounts alone may sign in; `nil` admits any.
    package let hostedDomain: String?

    /// Creates the plugin.
    public init() { hostedDomain = nil }

    /// The plugin admitting only accounts of the Workspace domain `hostedDomain` (its `hd` claim).
    package init(hostedDomain: String?) { self.hostedDomain = hostedDomain }

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

    /// Google's endpoints (the v3 certs JWKS), issuer (both spellings accepted), `email profile`, RS256,
    /// `access_type=offline` for a refresh token (docs/providers.md, "Google"), and native sign-in: Credential
    /// Manager and GoogleSignIn-iOS ask for a token whose `aud` is the server's (web) client id; `azp` names the
    /// Android or iOS client that presented it, one of `native_clients`.
    public var about: ProviderDescription {
        var description = ProviderDescription(
            type: "google", displayName: "Google",
            endpoints: ProviderEndpoints(
                authorization: "https://accounts.google.com/o/oauth2/v2/auth",
                token: "https://oauth2.googleapis.com/token",
                userinfo: "https://openidconnect.googleapis.com/v1/userinfo",
                jwks: "https://www.googleapis.com/oauth2/v3/certs", revocation: "https://oauth2.googleapis.com/revoke"),
            issuer: Self.issuer, scopes: ["email", "profile"],
            refreshTokenRequest: .authorizationParameter(name: "access_type", value: "offline"))
        description.issuerAliases = [Self.legacyIssuer]
        description.nativeSignIn = NativeSignInDescription(audience: .serverClientPresentedByNativeClient)
        return description
    }

    /// `client_secret_post` (the default) or `client_secret_basic`, the methods Google's discovery document lists.
    public var tokenEndpoint: any TokenEndpointStrategy {
        StandardTokenEndpoint(
            .clientSecretPost,
            choice: ClientAuthenticationChoice(
                allowed: [.clientSecretPost, .clientSecretBasic], defaultMethod: .clientSecretPost))
    }

    /// Reads the provider's `hosted_domain` (`GooglePreparation`, `GooglePlugin+HostedDomain.swift`).
    package var preparation: any ProviderPreparing { GooglePreparation() }

    /// The standard claims, and with `hosted_domain` the check of `hd` (`GoogleHostedDomainIdentity`).
    public var identity: any IdentityStrategy {
        guard let hostedDomain else { return StandardIdentity() }
        return GoogleHostedDomainIdentity(hostedDomain: hostedDomain)
    }

    /// Google RISC (Cross-Account Protection) events (`GoogleRISCEvents`).
    public var events: (any ProviderEventHandling)? { GoogleRISCEvents() }
}
