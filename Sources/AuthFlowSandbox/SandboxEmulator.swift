import AuthFlowHTTP
import AuthFlowJOSE

/// One emulated provider: its routes under its path prefix and the facts that differ between providers,
/// over the state every emulator shares (clients, consent tickets, codes, grants, tokens, key rings, request
/// counts), which lives in ``SandboxIdentityProvider``.
///
/// An emulator is a stateless value; the sandbox routes each request whose path starts with the provider's
/// prefix to it, with the rest of the path.
protocol SandboxEmulator: Sendable {
    /// The provider this emulates.
    var provider: SandboxProvider { get }
    /// A human-readable name for pages and messages.
    var displayName: String { get }
    /// How long an authorization code stays redeemable, in seconds.
    var authorizationCodeLifetime: Double { get }
    /// How long an access token is valid, in seconds.
    var accessTokenLifetime: Int64 { get }
    /// Whether the provider signs id_tokens (and so has a key ring and a JWKS).
    var issuesIDTokens: Bool { get }
    /// Prefixes that make codes and tokens look like the provider's own.
    var codePrefix: String { get }
    var accessTokenPrefix: String { get }
    var refreshTokenPrefix: String { get }
    /// The ready-made identities the consent page offers.
    var presets: [SandboxIdentity] { get }

    /// Answers a request under the provider's prefix; `path` is what follows the prefix (e.g. `/token`).
    func route(_ request: HTTPServerRequest, path: String, sandbox: SandboxIdentityProvider) -> HTTPServerResponse
    /// The provider's issuer on this sandbox (`root` is the base URL plus the path prefix); `nil` when it has none.
    func defaultIssuer(root: String) -> String?
    /// The absolute endpoint URLs under `root`.
    func endpoints(root: String, issuer: String?) -> SandboxEndpoints
    /// A `kid` shaped like the provider's own.
    func makeKeyID(random: any SecureRandom) -> String
    /// Checks a client before it is registered and returns what to store; `refuse` builds the error.
    func checkRegistration(_ client: SandboxClient, refuse: (String) -> SandboxError) throws(SandboxError)
        -> SandboxClient
    /// The fields of the authorization response when the user cancels.
    func cancellationFields(_ authorization: AuthorizationRequest) -> [(String, String)]
    /// The identity a code is issued for once the user approved as `identity` (e.g. the tenant it signs in to),
    /// or why the provider refuses it.
    func approvedIdentity(
        _ identity: SandboxIdentity, for authorization: AuthorizationRequest, sandbox: SandboxIdentityProvider
    ) -> Result<SandboxIdentity, AuthorizationRefusal>
    /// Reads the provider-specific fields of a typed identity on the consent form into `identity`; a refusal
    /// describes a bad value.
    func readConsentFields(_ form: Parameters, into identity: inout SandboxIdentity, sandbox: SandboxIdentityProvider)
        -> AuthorizationRefusal?
    /// Extra HTML inputs of the consent page's "someone else" identity.
    var consentFieldsHTML: String { get }
    /// The RFC 9207 `iss` added to authorization responses, if the provider sends one.
    func authorizationResponseIssuer(sandbox: SandboxIdentityProvider) -> String?

    /// How long the provider's id_tokens are valid, in seconds.
    var idTokenLifetime: Int64 { get }
    /// The header members of its id_tokens besides `alg` and `kid`.
    var idTokenHeader: [String: JSONValue] { get }
    /// Adds the provider's own claims to an id_token whose `iss`, `aud`, `sub`, `iat`, `exp`, `nonce` and
    /// `at_hash` are set; `nil` when the provider signs no id_tokens this way.
    func idTokenClaims(
        _ claims: [String: JSONValue], identity: SandboxIdentity, scopes: [String], authTime: Int64,
        authorizedParty: String?, random: any SecureRandom
    ) -> [String: JSONValue]?
    /// The scopes a native app's SDK asks for (`POST /_sandbox/{provider}/native`).
    var nativeScopes: [String] { get }
    /// The events the sandbox can send on the provider's behalf.
    var events: [SandboxEventSender] { get }
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

extension SandboxEmulator {
    var authorizationCodeLifetime: Double { 300 }
    var issuesIDTokens: Bool { true }
    var refreshTokenPrefix: String { "" }

    func defaultIssuer(root: String) -> String? { issuesIDTokens ? root : nil }

    /// 40 hexadecimal digits, as Google's and Facebook's key ids.
    func makeKeyID(random: any SecureRandom) -> String { Hex.encode(random.bytes(20)) }

    func checkRegistration(_ client: SandboxClient, refuse: (String) -> SandboxError) throws(SandboxError)
        -> SandboxClient
    {
        if let secret = client.clientSecret, secret.isEmpty {
            throw refuse("expected a non-empty client secret, or none")
        }
        return client
    }

    func cancellationFields(_ authorization: AuthorizationRequest) -> [(String, String)] {
        [("error", "access_denied"), ("error_description", "The user cancelled the sign-in.")]
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

    var consentFieldsHTML: String { "" }

    func authorizationResponseIssuer(sandbox: SandboxIdentityProvider) -> String? { nil }

    var idTokenLifetime: Int64 { 3600 }
    var idTokenHeader: [String: JSONValue] { [:] }

    func idTokenClaims(
        _ claims: [String: JSONValue], identity: SandboxIdentity, scopes: [String], authTime: Int64,
        authorizedParty: String?, random: any SecureRandom
    ) -> [String: JSONValue]? {
        nil
    }

    var nativeScopes: [String] { ["openid"] }
    var events: [SandboxEventSender] { [] }

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
