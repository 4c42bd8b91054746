import AuthFlowJOSE

/// The facts that differ between emulated providers, as one value: names, lifetimes, the shapes of codes, tokens
/// and key ids, endpoint paths, the issuer, the consent page's presets and fields, id_token details, native
/// scopes and the events the sandbox can send. An emulator's decisions that are code stay on
/// ``SandboxEmulator``.
struct SandboxEmulatorProfile: Sendable {
    /// How a provider shapes its key ids.
    enum KeyIDStyle: Sendable {
        /// 40 hexadecimal digits, as Google's and Facebook's.
        case hex
        /// Apple's 10 characters of `[A-Z0-9]`.
        case apple
        /// Entra's 27 base64url characters.
        case entra
    }

    /// The endpoint paths under the provider's root (the base URL plus its path prefix).
    struct Paths: Sendable {
        let authorization: String
        let token: String
        var userinfo: String?
        var jwks: String?
        var revocation: String?
        var discovery: String?
        /// The OpenID Connect RP-initiated logout endpoint.
        var endSession: String?
    }

    /// The provider this emulates.
    let provider: SandboxProvider
    /// A human-readable name for pages and messages.
    let displayName: String
    /// How long an authorization code stays redeemable, in seconds.
    var authorizationCodeLifetime: Double = 300
    /// How long an access token is valid, in seconds.
    let accessTokenLifetime: Int64
    /// Whether the provider signs id_tokens (and so has a key ring and a JWKS).
    var issuesIDTokens = true
    /// Prefixes that make codes and tokens look like the provider's own.
    let codePrefix: String
    let accessTokenPrefix: String
    var refreshTokenPrefix = ""
    /// The endpoint paths.
    let paths: Paths
    /// The issuer's path under the root (empty: the root itself); `nil` when the provider has no issuer.
    var issuerPath: String? = ""
    /// Whether authorization responses carry the RFC 9207 `iss`.
    var sendsResponseIssuer = false
    /// How the provider shapes its key ids.
    var keyIDStyle = KeyIDStyle.hex
    /// The fields of the authorization response when the user cancels (before `iss` and `state`).
    var cancellationFields: [(String, String)] = [
        ("error", "access_denied"), ("error_description", "The user cancelled the sign-in."),
    ]
    /// The ready-made identities the consent page offers.
    let presets: [SandboxIdentity]
    /// Extra HTML inputs of the consent page's "someone else" identity.
    var consentFieldsHTML = ""
    /// How long the provider's id_tokens are valid, in seconds.
    var idTokenLifetime: Int64 = 3600
    /// The header members of its id_tokens besides `alg` and `kid`.
    var idTokenHeader: [String: JSONValue] = [:]
    /// The scopes a native app's SDK asks for (`POST /_sandbox/{provider}/native`).
    var nativeScopes = ["openid"]
    /// The events the sandbox can send on the provider's behalf.
    var events: [SandboxEventSender] = []
}
