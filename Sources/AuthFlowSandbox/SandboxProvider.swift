/// The four identity providers the sandbox emulates, each under its own path prefix of the one listener.
public enum SandboxProvider: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Sign in with Apple, under `/apple`.
    case apple
    /// Google (OpenID Connect), under `/google`.
    case google
    /// Facebook Login and the Graph API, under `/facebook`.
    case facebook
    /// X (Twitter) OAuth 2.0, under `/x`.
    case x

    /// The path prefix of this provider's endpoints on the sandbox listener, e.g. `/apple`.
    public var pathPrefix: String { "/" + rawValue }

    /// A human-readable name for pages and messages.
    public var displayName: String {
        switch self {
        case .apple: "Apple"
        case .google: "Google"
        case .facebook: "Facebook"
        case .x: "X"
        }
    }

    /// The provider's name, as used in its path prefix.
    public var description: String { rawValue }

    /// How long an authorization code stays redeemable: 5 minutes, except X's 30 seconds.
    public var authorizationCodeLifetime: Double {
        switch self {
        case .apple, .google, .facebook: 300
        case .x: 30
        }
    }

    /// How long an access token is valid, in seconds, following each provider's documented or observed lifetime.
    public var accessTokenLifetime: Int64 {
        switch self {
        case .apple: 3600
        case .google: 3599
        case .facebook: 5_183_976
        case .x: 7200
        }
    }

    /// Whether the provider issues id_tokens (and so publishes a JWKS and has an issuer).
    public var issuesIDTokens: Bool { self != .x }
}
