/// The identity providers the sandbox emulates, each under its own path prefix of the one listener.
public enum SandboxProvider: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Sign in with Apple, under `/apple`.
    case apple
    /// Google (OpenID Connect), under `/google`.
    case google
    /// Facebook Login and the Graph API, under `/facebook`.
    case facebook
    /// X (Twitter) OAuth 2.0, under `/x`.
    case x
    /// Microsoft Entra ID (identity platform v2.0, OpenID Connect), with tenants, under `/microsoft`.
    case microsoft
    /// GitHub OAuth apps and GitHub App user tokens (OAuth 2.0 only), under `/github`.
    case github

    /// The path prefix of this provider's endpoints on the sandbox listener, e.g. `/apple`.
    package var pathPrefix: String { "/" + rawValue }

    /// A human-readable name for pages and messages.
    package var displayName: String { emulator.displayName }

    /// The provider's name, as used in its path prefix.
    public var description: String { rawValue }

    /// How long an authorization code stays redeemable: 5 minutes, except X's 30 seconds and Microsoft's and
    /// GitHub's 10 minutes.
    package var authorizationCodeLifetime: Double { emulator.authorizationCodeLifetime }

    /// How long an access token is valid, in seconds, following each provider's documented or observed lifetime.
    package var accessTokenLifetime: Int64 { emulator.accessTokenLifetime }

    /// Whether the provider issues id_tokens (and so publishes a JWKS and has an issuer).
    package var issuesIDTokens: Bool { emulator.issuesIDTokens }

    /// The emulator that answers this provider's requests.
    var emulator: any SandboxEmulator {
        switch self {
        case .apple: AppleEmulator()
        case .google: GoogleEmulator()
        case .facebook: FacebookEmulator()
        case .x: XEmulator()
        case .microsoft: MicrosoftEmulator()
        case .github: GitHubEmulator()
        }
    }
}
