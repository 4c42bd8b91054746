package import AuthFlowHTTP
package import AuthFlowJOSE

/// How a ``SandboxIdentityProvider`` listens, names itself, and gets its time and randomness.
public struct SandboxConfiguration: Sendable {
    /// The address the listener binds to; loopback by default.
    package var host: String
    /// The port the listener binds to; `0` picks a free port.
    package var port: Int
    /// The base URL the sandbox advertises (issuers, discovery, form actions). `nil` means
    /// `http://host:port` of the running listener. Set it when the sandbox is reached through a proxy, or
    /// answers requests without a listener.
    package var publicBaseURL: String?
    /// Per-provider `iss` values to use instead of the sandbox's own (`<base URL>/<provider>`).
    ///
    /// The real providers' issuers (`https://appleid.apple.com`, `https://accounts.google.com`) are never
    /// used by default: a token from the sandbox must not be mistaken for a real provider's.
    package var issuerOverrides: [SandboxProvider: String]
    /// The clock for code, token and consent-ticket lifetimes and for JWT timestamps.
    package var clock: any WallClock
    /// The randomness for codes, tokens, tickets and ids.
    package var random: any SecureRandom
    /// The HTTP client that delivers Apple server-to-server notifications; `nil` uses a `CurlHTTPClient`.
    package var notificationClient: (any HTTPClient)?
    /// Whether the loopback-only admin endpoints under `/_sandbox/` are served.
    package var enableAdminEndpoints: Bool
    /// Ready-made RSA signing keys per provider (private, with a `kid`); providers without one get a freshly
    /// generated 2048-bit key when first needed. Tests pass keys here to avoid generating them repeatedly.
    package var signingKeys: [SandboxProvider: JWK]
    /// The Microsoft emulator's tenants (besides personal accounts, which are always known); Contoso and
    /// Fabrikam by default (`SandboxMicrosoftTenant.defaults`).
    package var microsoftTenants: [SandboxMicrosoftTenant]
    /// How many consent tickets, authorization codes and spent client assertions (each kind counted apart)
    /// the sandbox remembers at once; past it, new ones are refused with 503 `temporarily_unavailable`, so
    /// memory stays bounded whatever a client sends. A redeemed code is remembered for an hour after it
    /// expires, to recognise a replay. 10,000 by default (``defaultMaximumPendingEntries``); values below 1
    /// count as 1. Raise it only for load tests that sign in more often than that.
    package var maximumPendingEntries: Int
    /// Whether the sandbox's OpenID issuer (the Google emulator, whose discovery document `type: oidc` reads)
    /// runs in a strict FAPI 2.0 mode: pushed authorization requests required (a `request_uri` lives
    /// ``pushedRequestLifetime`` seconds on the sandbox's clock and is used once), `iss` in every
    /// authorization response, `private_key_jwt` the only client authentication, PKCE with `S256` only, DPoP
    /// (RFC 9449) required with server nonces and `dpop_jkt` at the pushed request, id_tokens signed PS256.
    /// Its clients register assertion keys (``SandboxClient/openID(clientID:redirectURIs:assertionKeys:)``).
    package var fapi2 = false
    /// FAPI mode, for tests of a client's nonce handling: every DPoP proof is answered `use_dpop_nonce` with a
    /// fresh nonce, so a client that retries once meets a second challenge.
    package var dpopNonceAlwaysStale = false
    /// Outside the FAPI 2.0 mode: the OpenID issuer also binds tokens to a DPoP key (RFC 9449) when a token request
    /// carries a proof, checked as the FAPI mode checks it (server nonces included). Its discovery advertises
    /// `dpop_signing_alg_values_supported`, an authorization request's `dpop_jkt` binds the code (its exchange then
    /// needs a proof with that key), the answer is `token_type: DPoP`, and userinfo takes a bound token only as
    /// `Authorization: DPoP` with a proof (a refresh of a bound grant needs one too). A token request without a
    /// proof gets a Bearer token as before. `authflow sandbox --dpop`; for measuring what DPoP costs a client.
    package var dpop = false

    /// How long a `request_uri` of the FAPI 2.0 mode's pushed authorization requests lives, in seconds.
    package static let pushedRequestLifetime: Int64 = 60

    /// The default of ``maximumPendingEntries``.
    package static let defaultMaximumPendingEntries = 10_000

    /// Creates a configuration of a sandbox that listens on `host` and `port` (`127.0.0.1` and any free port by
    /// default), with the system clock and randomness.
    public init(host: String = "127.0.0.1", port: Int = 0) {
        self.init(host: host, port: port, publicBaseURL: nil)
    }

    /// Creates a configuration; every parameter has a working default.
    package init(
        host: String = "127.0.0.1", port: Int = 0, publicBaseURL: String? = nil,
        issuerOverrides: [SandboxProvider: String] = [:], clock: any WallClock = SystemClock(),
        random: any SecureRandom = SystemRandom(), notificationClient: (any HTTPClient)? = nil,
        enableAdminEndpoints: Bool = true, signingKeys: [SandboxProvider: JWK] = [:],
        microsoftTenants: [SandboxMicrosoftTenant] = SandboxMicrosoftTenant.defaults,
        maximumPendingEntries: Int = SandboxConfiguration.defaultMaximumPendingEntries
    ) {
        self.microsoftTenants = microsoftTenants
        self.maximumPendingEntries = maximumPendingEntries
        self.host = host
        self.port = port
        self.publicBaseURL = publicBaseURL
        self.issuerOverrides = issuerOverrides
        self.clock = clock
        self.random = random
        self.notificationClient = notificationClient
        self.enableAdminEndpoints = enableAdminEndpoints
        self.signingKeys = signingKeys
    }
}
