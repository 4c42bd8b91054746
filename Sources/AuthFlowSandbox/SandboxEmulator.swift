import AuthFlowHTTP
import AuthFlowJOSE

/// One emulated provider: its routes under its path prefix and what differs between providers, over the state
/// every emulator shares (clients, consent tickets, codes, grants, tokens, key rings, request counts), which lives
/// in ``SandboxIdentityProvider``.
///
/// An emulator is a stateless value: a ``SandboxEmulatorProfile`` (the facts: names, lifetimes, token shapes,
/// endpoint paths, presets, events) and the few decisions that are code. The sandbox routes each request whose
/// path starts with the provider's prefix to it, with the rest of the path.
protocol SandboxEmulator: Sendable {
    /// The facts that differ between providers.
    var profile: SandboxEmulatorProfile { get }
    /// Answers a request under the provider's prefix; `path` is what follows the prefix (e.g. `/token`).
    func route(_ request: HTTPServerRequest, path: String, sandbox: SandboxIdentityProvider) -> HTTPServerResponse
    /// Checks a client before it is registered and returns what to store; `refuse` builds the error.
    func checkRegistration(_ client: SandboxClient, refuse: (String) -> SandboxError) throws(SandboxError)
        -> SandboxClient
    /// The identity a code is issued for once the user approved as `identity` (e.g. the tenant it signs in to),
    /// or why the provider refuses it.
    func approvedIdentity(
        _ identity: SandboxIdentity, for authorization: AuthorizationRequest, sandbox: SandboxIdentityProvider
    ) -> Result<SandboxIdentity, AuthorizationRefusal>
    /// Reads the provider-specific fields of a typed identity on the consent form into `identity`; a refusal
    /// describes a bad value.
    func readConsentFields(_ form: Parameters, into identity: inout SandboxIdentity, sandbox: SandboxIdentityProvider)
        -> AuthorizationRefusal?
    /// Adds the provider's own claims to an id_token whose `iss`, `aud`, `sub`, `iat`, `exp`, `nonce` and
    /// `at_hash` are set; `nil` when the provider signs no id_tokens this way.
    func idTokenClaims(
        _ claims: [String: JSONValue], identity: SandboxIdentity, scopes: [String], authTime: Int64,
        authorizedParty: String?, random: any SecureRandom
    ) -> [String: JSONValue]?
    /// Registers a client with generated credentials for `authflow sandbox`, `serve --sandbox` and `demo`.
    func registerGeneratedClient(clientID: String, redirectURIs: [String], sandbox: SandboxIdentityProvider)
        throws(SandboxError) -> GeneratedClient
    /// The provider-specific lines of its `providers.yaml` entry for a demo client (credential file, scopes,
    /// capabilities), each indented by four spaces.
    func demoYAMLLines(_ client: SandboxDemoClient, sandbox: SandboxIdentityProvider) -> [String]
}

/// What ``SandboxEmulator/registerGeneratedClient(clientID:redirectURIs:sandbox:)`` registered.
struct GeneratedClient {
    let client: SandboxClient
    /// The generated static secret, if the client has one.
    let secret: String?
    /// Apple: the generated private key that signs client secrets, and the team id.
    let privateKey: JWK?
    let teamID: String?
}

// The profile's facts, read through the emulator.
extension SandboxEmulator {
    /// The provider this emulates.
    var provider: SandboxProvider { profile.provider }
    /// A human-readable name for pages and messages.
    var displayName: String { profile.displayName }
    /// How long an authorization code stays redeemable, in seconds.
    var authorizationCodeLifetime: Double { profile.authorizationCodeLifetime }
    /// How long an access token is valid, in seconds.
    var accessTokenLifetime: Int64 { profile.accessTokenLifetime }
    /// Whether the provider signs id_tokens (and so has a key ring and a JWKS).
    var issuesIDTokens: Bool { profile.issuesIDTokens }
    /// Prefixes that make codes and tokens look like the provider's own.
    var codePrefix: String { profile.codePrefix }
    var accessTokenPrefix: String { profile.accessTokenPrefix }
    var refreshTokenPrefix: String { profile.refreshTokenPrefix }
    /// The ready-made identities the consent page offers.
    var presets: [SandboxIdentity] { profile.presets }
    /// Extra HTML inputs of the consent page's "someone else" identity.
    var consentFieldsHTML: String { profile.consentFieldsHTML }
    /// How long the provider's id_tokens are valid, in seconds.
    var idTokenLifetime: Int64 { profile.idTokenLifetime }
    /// The header members of its id_tokens besides `alg` and `kid`.
    var idTokenHeader: [String: JSONValue] { profile.idTokenHeader }
    /// The scopes a native app's SDK asks for (`POST /_sandbox/{provider}/native`).
    var nativeScopes: [String] { profile.nativeScopes }
    /// The events the sandbox can send on the provider's behalf.
    var events: [SandboxEventSender] { profile.events }

    /// The provider's issuer on this sandbox (`root` is the base URL plus the path prefix); `nil` when it has none.
    func defaultIssuer(root: String) -> String? { profile.issuerPath.map { root + $0 } }

    /// The absolute endpoint URLs under `root`; `issuer` only for a provider that has one.
    func endpoints(root: String, issuer: String?) -> SandboxEndpoints {
        let paths = profile.paths
        return SandboxEndpoints(
            provider: provider, issuer: profile.issuerPath == nil ? nil : issuer,
            authorization: root + paths.authorization, token: root + paths.token,
            userinfo: paths.userinfo.map { root + $0 }, jwks: paths.jwks.map { root + $0 },
            revocation: paths.revocation.map { root + $0 }, discovery: paths.discovery.map { root + $0 },
            endSession: paths.endSession.map { root + $0 })
    }

    /// A `kid` shaped like the provider's own.
    func makeKeyID(random: any SecureRandom) -> String {
        switch profile.keyIDStyle {
        case .hex: Hex.encode(random.bytes(20))
        case .apple:
            randomString(length: 10, alphabet: Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".utf8), random: random)
        case .entra: Base64URL.encode(random.bytes(20))
        }
    }

    /// The fields of the authorization response when the user cancels.
    func cancellationFields(_ authorization: AuthorizationRequest) -> [(String, String)] {
        profile.cancellationFields
    }

    /// The RFC 9207 `iss` added to authorization responses, if the provider sends one (the OpenID issuer
    /// does in its FAPI 2.0 mode, ``SandboxConfiguration/fapi2``).
    func authorizationResponseIssuer(sandbox: SandboxIdentityProvider) -> String? {
        let sends = profile.sendsResponseIssuer || (provider == .google && sandbox.configuration.fapi2)
        return sends ? sandbox.issuer(for: provider) : nil
    }
}

// The defaults of the decisions.
extension SandboxEmulator {
    func checkRegistration(_ client: SandboxClient, refuse: (String) -> SandboxError) throws(SandboxError)
        -> SandboxClient
    {
        if let secret = client.clientSecret, secret.isEmpty {
            throw refuse("expected a non-empty client secret, or none")
        }
        return client
    }

    func approvedIdentity(
        _ identity: SandboxIdentity, for authorization: AuthorizationRequest, sandbox: SandboxIdentityProvider
    ) -> Result<SandboxIdentity, AuthorizationRefusal> {
        .success(identity)
    }

    func readConsentFields(_ form: Parameters, into identity: inout SandboxIdentity, sandbox: SandboxIdentityProvider)
        -> AuthorizationRefusal?
    {
        nil
    }

    func idTokenClaims(
        _ claims: [String: JSONValue], identity: SandboxIdentity, scopes: [String], authTime: Int64,
        authorizedParty: String?, random: any SecureRandom
    ) -> [String: JSONValue]? {
        nil
    }

    /// A client with a generated 32-character static secret.
    func registerGeneratedClient(clientID: String, redirectURIs: [String], sandbox: SandboxIdentityProvider)
        throws(SandboxError) -> GeneratedClient
    {
        let secret = Base64URL.encode(sandbox.configuration.random.bytes(24))
        let client = SandboxClient(
            provider: provider, clientID: clientID, clientSecret: secret, redirectURIs: redirectURIs)
        try sandbox.register(client)
        return GeneratedClient(client: client, secret: secret, privateKey: nil, teamID: nil)
    }

    /// The client secret file.
    func demoYAMLLines(_ client: SandboxDemoClient, sandbox: SandboxIdentityProvider) -> [String] {
        client.credentialFile.map { ["    client_secret_file: \"\($0)\""] } ?? []
    }
}

extension SandboxIdentityProvider {
    /// The emulator whose path prefix starts `path`, with the rest of the path.
    static func emulator(forPath path: String) -> (emulator: any SandboxEmulator, rest: String)? {
        for provider in SandboxProvider.allCases {
            let prefix = provider.pathPrefix
            guard path.hasPrefix(prefix + "/") else { continue }
            return (provider.emulator, String(path.dropFirst(prefix.count)))
        }
        return nil
    }

    /// Answers `handler` only for `method`; 405 with `Allow` otherwise.
    func only(
        _ method: String, _ request: HTTPServerRequest, _ handler: () -> HTTPServerResponse
    ) -> HTTPServerResponse {
        guard request.method == method else { return Self.methodNotAllowed(method) }
        return handler()
    }
}
