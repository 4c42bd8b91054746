import AuthFlow
import AuthFlowCurl
import AuthFlowDeployment
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowProviders
import AuthFlowSandbox
import Foundation
import Testing

/// The project's own provider plugins and sign-in driver, configured from the `providers.yaml` fragment the
/// sandbox writes for its demo clients, complete a real sign-in against each emulator that has a built-in
/// plugin of its name over loopback.
@Suite("Built-in plugins against the sandbox")
struct CorePluginInteropTests {
    static let withPlugins = SandboxProvider.allCases.filter { ProviderRegistry.standard.types.contains($0.rawValue) }

    @Test(arguments: withPlugins)
    func signInCompletesAgainstTheEmulator(provider: SandboxProvider) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "authflow-sandbox-interop-\(UUID().uuidString)"
        ).path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // The sandbox's clock stands still: X's codes live 30 s, and a parallel test run on a busy machine can
        // stall a task between the authorization and the code's redemption for longer than that.
        let sandbox = SandboxIdentityProvider(
            configuration: SandboxConfiguration(
                clock: ManualClock(Date()), signingKeys: try SandboxHarness.sharedKeys.get()))
        try sandbox.start()
        defer { Task { [sandbox] in await sandbox.stop() } }
        let clients = try sandbox.registerDemoClients(credentialsDirectory: directory)
        let identity = SandboxIdentity.presets(for: provider)[0]
        sandbox.setAutoConsent(identity, for: provider)

        // The fragment of the providers that have a built-in plugin (the same text as the written file's).
        let fragment = sandbox.providersYAML(for: clients.filter { Self.withPlugins.contains($0.provider) })
        let yaml = """
            server:
              public_url: http://localhost:8080
              secret: "0123456789abcdef0123456789abcdef0123"
            store:
              kind: memory

            """ + fragment
        let configuration = try ConfigurationLoader(environment: [:]).load(
            yaml: yaml, fileName: directory + "/all.yaml")
        let signIn = SignIn(
            providers: try ProviderRegistry.standard.resolve(configuration), httpClient: CurlHTTPClient(),
            flowStore: InMemoryFlowStore(clock: SystemClock()))
        let binding = signIn.newBrowserBinding()
        let start = try await signIn.begin(provider: provider.rawValue, returnTo: "/", browserBinding: binding)
        #expect(start.redirectURL.hasPrefix(sandbox.endpoints(for: provider).authorization + "?"))

        // The browser's part: the sandbox answers the authorization request with the callback.
        var request = HTTPClientRequest(url: start.redirectURL)
        request.timeout = 30
        let answer = try await CurlHTTPClient().send(request)
        let reply = Reply(status: answer.status, headers: answer.headers, body: answer.body)
        let method: CallbackMethod = provider == .apple ? .post : .get
        #expect(reply.status == (provider == .apple ? 200 : 302))
        let pairs = provider == .apple ? SandboxHarness.hiddenFields(in: reply.text) : queryPairs(reply.location)

        let result = try await signIn.complete(
            provider: provider.rawValue, method: method, parameters: CallbackParameters(pairs),
            flowRecord: start.record)
        if provider == .microsoft {
            // The Microsoft plugin keys the user on tid and oid (`sub` is pairwise per application).
            let claims = result.identity.rawClaims
            let tid = try #require(claims["tid"]?.stringValue)
            let oid = try #require(claims["oid"]?.stringValue)
            #expect(result.identity.subject == "\(tid):\(oid)")
            #expect(claims["sub"]?.stringValue == identity.subject)
        } else {
            #expect(result.identity.subject == identity.subject)
        }
        if provider == .apple {
            #expect(result.unverifiedProfile?.firstName == identity.givenName)
            #expect(result.identity.email == identity.email)
            #expect(result.identity.emailVerified)
        }
        if provider == .google {
            #expect(result.identity.email == identity.email)
            #expect(result.identity.emailVerified)
        }
        #expect(sandbox.requestCounts(for: provider).token == 1)
    }

    func queryPairs(_ location: String?) -> [(String, String)] {
        guard let location else { return [] }
        var rest = Substring(location)
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        guard let question = rest.firstIndex(of: "?") else { return [] }
        return FormURLEncoding.decode(rest[rest.index(after: question)...])
    }
}
