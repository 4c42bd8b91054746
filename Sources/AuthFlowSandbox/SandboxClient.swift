public import AuthFlowJOSE

/// A relying party (an app) registered with one of the sandbox's emulated providers.
///
/// Build one with the provider-specific factory (`.apple(…)`, `.google(…)`, `.facebook(…)`, `.x(…)`)
/// and pass it to ``SandboxIdentityProvider/register(_:)``. Redirect URIs are compared byte for byte,
/// as the real providers do: no trailing-slash, case or port normalisation.
public struct SandboxClient: Sendable {
    /// The Apple-specific credentials: the developer team and the public half of the key that signs
    /// the ES256 client-secret JWT.
    package struct AppleCredentials: Sendable {
        /// The 10-character Team ID, expected as the client secret's `iss`.
        package let teamID: String
        /// The key ID, expected as the client secret's `kid`.
        package let keyID: String
        /// The P-256 public key that verifies the client secret (a private key is reduced to its public half).
        package let publicKey: JWK
    }

    /// Which emulated provider this client is registered with.
    package let provider: SandboxProvider
    /// The client identifier (Apple: the Services ID or bundle ID; Facebook: the App ID).
    package let clientID: String
    /// The static client secret (Google, Facebook, confidential X clients); `nil` for Apple and public X clients.
    package let clientSecret: String?
    /// The registered redirect URIs, matched exactly.
    package let redirectURIs: [String]
    /// Apple only: team, key id and public key for the client-secret JWT.
    package let apple: AppleCredentials?
    /// Facebook only: whether Graph calls must carry `appsecret_proof` ("Require App Secret"); on by default.
    package let requiresAppSecretProof: Bool
    /// Microsoft only: the one token-endpoint client authentication method this client may use; `nil` allows
    /// every method it has credentials for (a secret: Basic and post; keys: `private_key_jwt`).
    package let authMethod: AuthMethod?
    /// Microsoft only: the public keys (ES256, RS256 or PS256) that verify the client's `private_key_jwt`
    /// assertions.
    package let assertionKeys: [JWK]
    /// Microsoft only: the DER encoding of the X.509 certificate registered with ``assertionKeys``; when set, an
    /// assertion must name it by thumbprint in its header, `x5t` (SHA-1) or `x5t#S256` (SHA-256), as Entra asks.
    package var certificate: [UInt8]? = nil
    /// Microsoft only: the registered `post_logout_redirect_uri` values, matched exactly.
    package let postLogoutRedirectURIs: [String]
    /// GitHub only: whether the app issues expiring user tokens (a GitHub App: 8-hour `ghu_` tokens with a
    /// rotating `ghr_` refresh token) rather than an OAuth app's non-expiring `gho_` tokens.
    package let issuesExpiringTokens: Bool

    /// A token-endpoint client authentication method (OpenID Connect Core §9 names).
    package enum AuthMethod: String, Sendable, Hashable, CaseIterable {
        /// `client_id` and `client_secret` in an HTTP Basic header.
        case clientSecretBasic = "client_secret_basic"
        /// `client_id` and `client_secret` in the form body.
        case clientSecretPost = "client_secret_post"
        /// A JWT signed with the client's private key (RFC 7523) in `client_assertion`.
        case privateKeyJWT = "private_key_jwt"
        /// No client authentication: a public client sends `client_id` only.
        case none
    }

    init(
        provider: SandboxProvider, clientID: String, clientSecret: String?, redirectURIs: [String],
        apple: AppleCredentials? = nil, requiresAppSecretProof: Bool = false, authMethod: AuthMethod? = nil,
        assertionKeys: [JWK] = [], postLogoutRedirectURIs: [String] = [], issuesExpiringTokens: Bool = false
    ) {
        self.provider = provider
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.redirectURIs = redirectURIs
        self.apple = apple
        self.requiresAppSecretProof = requiresAppSecretProof
        self.authMethod = authMethod
        self.assertionKeys = assertionKeys
        self.postLogoutRedirectURIs = postLogoutRedirectURIs
        self.issuesExpiringTokens = issuesExpiringTokens
    }

    /// An Apple Services ID (or bundle ID) whose token requests authenticate with an ES256 client-secret JWT.
    ///
    /// - Parameters:
    ///   - clientID: the Services ID, expected as the JWT's `sub`.
    ///   - teamID: the Team ID, expected as the JWT's `iss`.
    ///   - keyID: the key ID, expected as the JWT header's `kid`.
    ///   - publicKey: the P-256 key that verifies the JWT (see ``SandboxIdentityProvider/generateAppleClientKey(keyID:)``).
    ///   - redirectURIs: the allowed return URLs.
    public static func apple(
        clientID: String, teamID: String, keyID: String, publicKey: JWK, redirectURIs: [String]
    ) -> SandboxClient {
        SandboxClient(
            provider: .apple, clientID: clientID, clientSecret: nil, redirectURIs: redirectURIs,
            apple: AppleCredentials(teamID: teamID, keyID: keyID, publicKey: publicKey.publicKey))
    }

    /// A Google OAuth client that authenticates with `client_secret_post` or `client_secret_basic`.
    public static func google(clientID: String, clientSecret: String, redirectURIs: [String]) -> SandboxClient {
        SandboxClient(provider: .google, clientID: clientID, clientSecret: clientSecret, redirectURIs: redirectURIs)
    }

    /// A client of the sandbox's OpenID issuer in its FAPI 2.0 mode (``SandboxConfiguration/fapi2``): no
    /// secret, `private_key_jwt` assertions verified with `assertionKeys` (private keys are reduced to their
    /// public part).
    package static func openID(clientID: String, redirectURIs: [String], assertionKeys: [JWK]) -> SandboxClient {
        SandboxClient(
            provider: .google, clientID: clientID, clientSecret: nil, redirectURIs: redirectURIs,
            authMethod: .privateKeyJWT, assertionKeys: assertionKeys.map(\.publicKey))
    }

    /// A Facebook app; its secret travels in the token request's query string and keys `appsecret_proof`.
    ///
    /// - Parameters:
    ///   - clientID: the App ID.
    ///   - clientSecret: the App Secret.
    ///   - redirectURIs: the allowed redirect URIs ("Valid OAuth Redirect URIs").
    ///   - requireAppSecretProof: whether Graph calls must carry `appsecret_proof` (default `true`).
    public static func facebook(
        clientID: String, clientSecret: String, redirectURIs: [String], requireAppSecretProof: Bool = true
    ) -> SandboxClient {
        SandboxClient(
            provider: .facebook, clientID: clientID, clientSecret: clientSecret, redirectURIs: redirectURIs,
            requiresAppSecretProof: requireAppSecretProof)
    }

    /// An X OAuth 2.0 client: confidential (HTTP Basic at the token and revoke endpoints) when it has a
    /// secret, public (`client_id` in the body) when `clientSecret` is `nil`.
    public static func x(clientID: String, clientSecret: String?, redirectURIs: [String]) -> SandboxClient {
        SandboxClient(provider: .x, clientID: clientID, clientSecret: clientSecret, redirectURIs: redirectURIs)
    }

    /// A Microsoft Entra app registration that accepts every client authentication it has credentials for: the
    /// secret (`client_secret_basic` or `client_secret_post`), or none when `clientSecret` is `nil`. After sign-out
    /// the logout endpoint may send the user back to each redirect URI's sibling `logged-out` URL one level above
    /// the provider segment (`https://app/auth/ms/callback` → `https://app/auth/logged-out`).
    public static func microsoft(clientID: String, clientSecret: String?, redirectURIs: [String]) -> SandboxClient {
        microsoft(
            clientID: clientID, clientSecret: clientSecret, redirectURIs: redirectURIs, authMethod: nil,
            assertionKeys: [], postLogoutRedirectURIs: nil)
    }

    /// A Microsoft Entra app registration.
    ///
    /// - Parameters:
    ///   - clientID: the application (client) id.
    ///   - clientSecret: the client secret, for `client_secret_basic` / `client_secret_post`; `nil` for none.
    ///   - redirectURIs: the allowed redirect URIs.
    ///   - authMethod: the one method the token endpoint accepts from this client; `nil` accepts every method
    ///     the client has credentials for. With neither secret nor keys the client is public (`none`).
    ///   - assertionKeys: public keys for `private_key_jwt` assertions (private keys are reduced to their public
    ///     half).
    ///   - certificate: the DER X.509 certificate of the assertion key (a certificate credential): assertions must
    ///     then carry its thumbprint as `x5t` or `x5t#S256`.
    ///   - postLogoutRedirectURIs: where the logout endpoint may send the user back; `nil` registers, for each
    ///     redirect URI, its sibling `logged-out` URL one level above the provider segment
    ///     (`https://app/auth/ms/callback` → `https://app/auth/logged-out`, AuthFlow's own route), or
    ///     `<origin>/auth/logged-out` when the redirect URI does not end in `/callback`.
    package static func microsoft(
        clientID: String, clientSecret: String?, redirectURIs: [String], authMethod: AuthMethod? = nil,
        assertionKeys: [JWK] = [], postLogoutRedirectURIs: [String]? = nil, certificate: [UInt8]? = nil
    ) -> SandboxClient {
        var client = SandboxClient(
            provider: .microsoft, clientID: clientID, clientSecret: clientSecret, redirectURIs: redirectURIs,
            authMethod: authMethod, assertionKeys: assertionKeys.map(\.publicKey),
            postLogoutRedirectURIs: postLogoutRedirectURIs ?? redirectURIs.map(defaultPostLogoutRedirectURI))
        client.certificate = certificate
        return client
    }

    /// A GitHub OAuth app (non-expiring `gho_` tokens), or a GitHub App acting for users when `expiringTokens`
    /// (8-hour `ghu_` tokens and rotating `ghr_` refresh tokens). Both authenticate with the secret in the body.
    public static func github(
        clientID: String, clientSecret: String, redirectURIs: [String], expiringTokens: Bool = false
    ) -> SandboxClient {
        SandboxClient(
            provider: .github, clientID: clientID, clientSecret: clientSecret, redirectURIs: redirectURIs,
            issuesExpiringTokens: expiringTokens)
    }

    /// The post-logout redirect URI registered by default for a redirect URI: `…/{prefix}/{name}/callback` →
    /// `…/{prefix}/logged-out`; otherwise `<scheme>://<authority>/auth/logged-out`.
    package static func defaultPostLogoutRedirectURI(for redirectURI: String) -> String {
        var segments = redirectURI.split(separator: "?", maxSplits: 1)[0].split(
            separator: "/", omittingEmptySubsequences: false)
        // scheme:, "", authority, path segments…
        if segments.count >= 6, segments.last == "callback" {
            segments.removeLast(2)
            return segments.joined(separator: "/") + "/logged-out"
        }
        return segments.prefix(3).joined(separator: "/") + "/auth/logged-out"
    }

    /// Whether this client must authenticate with a secret (everything but a public X client).
    var isConfidential: Bool { provider == .apple || clientSecret != nil }
}
