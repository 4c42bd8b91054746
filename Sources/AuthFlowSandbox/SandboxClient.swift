public import AuthFlowJOSE

/// A relying party (an app) registered with one of the sandbox's emulated providers.
///
/// Build one with the provider-specific factory (`.apple(…)`, `.google(…)`, `.facebook(…)`, `.x(…)`)
/// and pass it to ``SandboxIdentityProvider/register(_:)``. Redirect URIs are compared byte for byte,
/// as the real providers do: no trailing-slash, case or port normalisation.
public struct SandboxClient: Sendable {
    /// The Apple-specific credentials: the developer team and the public half of the key that signs
    /// the ES256 client-secret JWT.
    public struct AppleCredentials: Sendable {
        /// The 10-character Team ID, expected as the client secret's `iss`.
        public let teamID: String
        /// The key ID, expected as the client secret's `kid`.
        public let keyID: String
        /// The P-256 public key that verifies the client secret (a private key is reduced to its public half).
        public let publicKey: JWK
    }

    /// Which emulated provider this client is registered with.
    public let provider: SandboxProvider
    /// The client identifier (Apple: the Services ID or bundle ID; Facebook: the App ID).
    public let clientID: String
    /// The static client secret (Google, Facebook, confidential X clients); `nil` for Apple and public X clients.
    public let clientSecret: String?
    /// The registered redirect URIs, matched exactly.
    public let redirectURIs: [String]
    /// Apple only: team, key id and public key for the client-secret JWT.
    public let apple: AppleCredentials?
    /// Facebook only: whether Graph calls must carry `appsecret_proof` ("Require App Secret"); on by default.
    public let requiresAppSecretProof: Bool

    init(
        provider: SandboxProvider, clientID: String, clientSecret: String?, redirectURIs: [String],
        apple: AppleCredentials? = nil, requiresAppSecretProof: Bool = false
    ) {
        self.provider = provider
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.redirectURIs = redirectURIs
        self.apple = apple
        self.requiresAppSecretProof = requiresAppSecretProof
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

    /// Whether this client must authenticate with a secret (everything but a public X client).
    var isConfidential: Bool { provider == .apple || clientSecret != nil }
}
