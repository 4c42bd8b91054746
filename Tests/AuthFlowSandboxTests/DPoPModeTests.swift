import AuthFlow
import AuthFlowCurl
import AuthFlowDeployment
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowProviders
import AuthFlowSandbox
import Foundation
import Testing

/// The sandbox's OpenID issuer in its DPoP mode (``SandboxConfiguration/dpop``, outside the FAPI 2.0 mode), signed in
/// to by `type: oidc` with a client secret: a proof binds the tokens (one nonce challenge, then the remembered nonce
/// at userinfo), a bound token is refused as Bearer, the code is bound to `dpop_jkt`, and a client that sends no
/// proof gets Bearer tokens as before.
@Suite struct DPoPModeTests {
    static let client = CurlHTTPClient(configuration: .init(defaultTimeout: 30, connectTimeout: 15))
    static let redirectURI = "http://localhost:8080/auth/bank/callback"

    struct Stand {
        let sandbox: SandboxIdentityProvider
        let signIn: SignIn
    }

    /// A started DPoP-mode sandbox with one Google client, and a driver whose `bank` provider has `dpop: <dpop>`.
    func withStand(dpop: String, _ body: (Stand) async throws -> Void) async throws {
        var configuration = SandboxConfiguration(
            clock: ManualClock(Date()), signingKeys: try SandboxHarness.sharedKeys.get())
        configuration.dpop = true
        let sandbox = SandboxIdentityProvider(configuration: configuration)
        try sandbox.start()
        do {
            try sandbox.register(
                .google(clientID: "dpop-client", clientSecret: "dpop-client-secret", redirectURIs: [Self.redirectURI]))
            sandbox.setAutoConsent(SandboxIdentity.presets(for: .google)[0], for: .google)
            let issuer = try #require(sandbox.issuer(for: .google))
            let yaml = """
                server:
                  public_url: http://localhost:8080
                  secret: "0123456789abcdef0123456789abcdef0123"
                providers:
                  bank:
                    type: oidc
                    issuer: \(issuer)
                    client_id: dpop-client
                    client_secret: dpop-client-secret
                    dpop: \(dpop)
                """
            let loaded = try ConfigurationLoader(environment: [:]).load(yaml: yaml, fileName: "providers.yaml")
            let providers = try await ProviderRegistry.standard.resolve(loaded, httpClient: Self.client)
            let signIn = SignIn(
                providers: providers, httpClient: Self.client, flowStore: InMemoryFlowStore(clock: SystemClock()))
            try await body(Stand(sandbox: sandbox, signIn: signIn))
        } catch {
            await sandbox.stop()
            throw error
        }
        await sandbox.stop()
    }

    /// Begins a sign-in, lets the sandbox consent, and completes it with `record` altered by `alter`.
    func signIn(_ stand: Stand, alter: (inout FlowRecord) throws -> Void = { _ in }) async throws -> SignInResult {
        let start = try await stand.signIn.begin(
            provider: "bank", returnTo: "/", browserBinding: stand.signIn.newBrowserBinding())
        var request = HTTPClientRequest(url: start.redirectURL)
        request.timeout = 30
        let reply = try await Self.client.send(request)
        let location = reply.headers["Location"] ?? ""
        let query = location.firstIndex(of: "?").map { location[location.index(after: $0)...] } ?? ""
        var record = start.record
        try alter(&record)
        return try await stand.signIn.complete(
            provider: "bank", method: .get, parameters: CallbackParameters(FormURLEncoding.decode(query)),
            flowRecord: record)
    }

    @Test func aProofBindsTheTokensAndUserinfoProvesPossession() async throws {
        try await withStand(dpop: "true") { stand in
            let result = try await signIn(stand)
            #expect(result.tokens.tokenType == "DPoP")
            #expect(result.tokens.dpopKey != nil)
            // The first proof meets a nonce challenge and is sent again; userinfo uses the remembered nonce.
            #expect(stand.sandbox.requestCounts(for: .google).token == 2)
            #expect(stand.sandbox.requestCounts(for: .google).userinfo == 1)

            // The bound token presented as a Bearer token is refused.
            let userinfo = try #require(stand.sandbox.endpoints(for: .google).userinfo)
            var request = HTTPClientRequest(url: userinfo)
            request.headers["Authorization"] = "Bearer " + result.tokens.accessToken
            let answer = try await Self.client.send(request)
            #expect(answer.status == 401)
            #expect(answer.headers["WWW-Authenticate"]?.contains("invalid_token") == true)
        }
    }

    @Test func theCodeIsBoundToTheKeyNamedByDPoPJKT() async throws {
        try await withStand(dpop: "true") { stand in
            await #expect {
                _ = try await signIn(stand) { $0.dpopKey = try JWK.generateP256() }
            } throws: { error in
                (error as? SignInError)?.providerError == "invalid_dpop_proof"
            }
        }
    }

    @Test func withoutAProofTheTokensStayBearer() async throws {
        try await withStand(dpop: "false") { stand in
            let discovery = try await Self.client.send(
                HTTPClientRequest(url: try #require(stand.sandbox.endpoints(for: .google).discovery)))
            #expect(try JSONValue.parse(discovery.body)["dpop_signing_alg_values_supported"] != nil)
            let result = try await signIn(stand)
            #expect(result.tokens.tokenType == "Bearer")
            #expect(result.tokens.dpopKey == nil)
            #expect(stand.sandbox.requestCounts(for: .google).token == 1)
            #expect(stand.sandbox.requestCounts(for: .google).userinfo == 1)
        }
    }
}
