import AuthFlowBrowserTestSupport
import AuthFlowDeployment
import AuthFlowHTTP
import AuthFlowSandbox
import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlowDemo

/// Sandbox mode (`serve --sandbox`, `demo`) is throwaway whatever the configuration says: it can never mint a
/// session that a normal run of the same configuration accepts, and it listens on loopback only.
@Suite("Sandbox mode is isolated from the real store and secret")
struct SandboxIsolationTests {
    static let secret = "0123456789abcdef0123456789abcdef-isolation"

    static func yaml(port: Int, store: String, sandboxListen: String? = nil) -> String {
        """
        server:
          listen: 127.0.0.1:\(port)
          public_url: http://localhost:\(port)
          secret: \(secret)
        store:
          \(store)
        \(sandboxListen.map { "sandbox:\n  listen: \($0)\n" } ?? "")providers:
          google:
            type: google
            client_id: 123.apps.googleusercontent.com
            client_secret: not-a-real-google-secret

        """
    }

    static func load(_ yaml: String, mode: ConfigurationLoader.Mode) throws -> Configuration {
        try ConfigurationLoader(environment: [:], mode: mode).load(yaml: yaml, fileName: "providers.yaml")
    }

    /// Signs in with Google through the sandbox's consent page (the first preset identity).
    static func signIn(_ browser: TestBrowser, app: String) async throws {
        let start = try await browser.get("\(app)/auth/google/login?return_to=/")
        let authorize = try #require(start.location)
        let consent = try await browser.get(authorize)
        let form = try #require(HTMLForm(consent.text))
        let ticket = try #require(form.value("ticket"))
        let origin = TestBrowser.origin(of: authorize)
        let action = form.action.hasPrefix("http") ? form.action : origin + form.action
        let approved = try await browser.post(
            action, form: [("ticket", ticket), ("identity", "preset-0"), ("decision", "allow")],
            from: origin)
        let callback = try await browser.get(try #require(approved.location))
        #expect(callback.status == 302)
    }

    @Test func sandboxMicrosoftTenantsReplaceTheEmulatorsDefaultTenants() async throws {
        let tenant = "5f0c7d3e-1a2b-4c3d-8e9f-001122334455"
        let yaml = Self.yaml(port: 8080, store: "kind: memory").replacingOccurrences(
            of: "providers:", with: "sandbox:\n  microsoft_tenants: [\(tenant)]\nproviders:")
        let deployment = try await SandboxDeployment.start(configuration: try Self.load(yaml, mode: .sandbox))
        defer { Task { await deployment.stop() } }
        #expect(deployment.sandbox.configuration.microsoftTenants.map(\.id) == [tenant])
        let client = CurlHTTPClient()
        func discovery(_ authority: String) async throws -> Int {
            try await client.send(
                HTTPClientRequest(
                    url: deployment.baseURL + "/microsoft/\(authority)/v2.0/.well-known/openid-configuration")
            ).status
        }
        #expect(try await discovery(tenant) == 200)
        #expect(try await discovery("3c9d2e1f-7a6b-4c5d-8e9f-0a1b2c3d4e5f") == 400)  // a default tenant, not listed
    }

    @Test func aSandboxSessionIsNotValidWhenTheSameConfigurationIsServedNormally() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "authflow-isolation-\(UUID().uuidString.prefix(8))"
        ).path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let storePath = directory + "/authflow.sqlite"
        let port = try LoopbackPort.unused()
        let yaml = Self.yaml(port: port, store: "kind: sqlite\n  path: \(storePath)")
        let app = "http://localhost:\(port)"
        let browser = TestBrowser()

        let sandboxRun = try await SignInService.start(
            configuration: try Self.load(yaml, mode: .sandbox), sandboxMode: true, registry: .standard)
        let temporary = try #require(sandboxRun.temporaryDatabase)
        do {
            try await Self.signIn(browser, app: app)
            #expect(try await browser.get(app + "/auth/check").status == 202)
            #expect(sandboxRun.server.options.secret.value != Self.secret, "the configured secret must not be used")
            #expect(!FileManager.default.fileExists(atPath: storePath), "the configured store must not be opened")
            let attributes = try FileManager.default.attributesOfItem(atPath: temporary)
            #expect((attributes[.posixPermissions] as? Int) == 0o600)
            let folder = (temporary as NSString).deletingLastPathComponent
            let folderAttributes = try FileManager.default.attributesOfItem(atPath: folder)
            #expect((folderAttributes[.posixPermissions] as? Int) == 0o700)
        } catch {
            await sandboxRun.stop()
            throw error
        }
        await sandboxRun.stop()
        #expect(!FileManager.default.fileExists(atPath: temporary), "the throwaway database is removed at stop")
        let cookie = try #require(browser.cookies(for: app).first { $0.name.contains("session") })
        #expect(!cookie.value.isEmpty)

        let normalRun = try await SignInService.start(
            configuration: try Self.load(yaml, mode: .normal), sandboxMode: false, registry: .standard)
        let check = try await browser.get(app + "/auth/check")
        let session = try await browser.get(app + "/auth/session")
        await normalRun.stop()
        #expect(check.status == 401)
        #expect(session.status == 401)
    }

    @Test func theSandboxWithAMemoryStoreIgnoresTheConfiguredSecret() async throws {
        let port = try LoopbackPort.unused()
        let service = try await SignInService.start(
            configuration: try Self.load(Self.yaml(port: port, store: "kind: memory"), mode: .sandbox),
            sandboxMode: true, registry: .standard)
        let secret = service.server.options.secret.value
        let database = service.temporaryDatabase
        await service.stop()
        #expect(secret != Self.secret)
        #expect(secret.utf8.count >= 32)
        #expect(database == nil)
    }

    @Test(arguments: ["0.0.0.0", "192.0.2.10", "::", "localhost", "example.com"])
    func aSandboxListeningBeyondLoopbackIsRefused(host: String) async throws {
        let port = try LoopbackPort.unused()
        let listen = host.contains(":") ? "\"[\(host)]:0\"" : "\(host):0"
        let configuration = try Self.load(
            Self.yaml(port: port, store: "kind: memory", sandboxListen: listen), mode: .sandbox)
        #expect(configuration.sandbox?.listen.host == host)
        let error = await #expect(throws: ConfigurationError.self) {
            _ = try await SignInService.start(configuration: configuration, sandboxMode: true, registry: .standard)
        }
        let issue = try #require(error?.issues.first)
        #expect(issue.code == .invalidValue)
        #expect(issue.message.contains("sandbox.listen must be a loopback address"))
    }

    @Test(arguments: ["127.0.0.1", "127.8.9.10", "::1"])
    func loopbackAddressesAreAccepted(host: String) {
        #expect(SandboxDeployment.isLoopback(host))
    }
}
