import AuthFlow
import AuthFlowDemo
import AuthFlowDeployment
import AuthFlowHTTP
import AuthFlowProviders
import AuthFlowServer
import Foundation
import Testing

/// Sandbox mode for an app that embeds the server: one call loads the file in sandbox mode and starts the
/// sandbox; the server created from its configuration signs in against it.
@Suite struct EmbeddedSandboxTests {
    @Test func oneCallLoadsTheFileStartsTheSandboxAndPointsTheProvidersAtIt() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("authflow-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("providers.yaml").path
        // No client_id and no secret: sandbox mode forgives both.
        try """
        server:
          public_url: http://localhost:8080
          path_prefix: /login
        providers:
          google:
            type: google
        """.write(toFile: path, atomically: true, encoding: .utf8)
        let deployment = try await SandboxDeployment.start(loading: path, environment: [:])
        let google = try #require(deployment.configuration.providers.first)
        #expect(google.redirectURI == "http://localhost:8080/login/google/callback")
        #expect(google.endpoints.authorization?.hasPrefix(deployment.baseURL + "/") == true)
        #expect(deployment.secretWasGenerated)
        let server = try await SignInServer(
            resolving: deployment.configuration, registry: .standard, stores: .memory(clock: SystemClock()),
            httpClient: CurlHTTPClient())
        let start = await server.handle(
            HTTPServerRequest(method: "GET", path: "/login/google/login", remoteAddress: "127.0.0.1"))
        #expect(start.status == 302)
        #expect(start.headers["Location"]?.hasPrefix(deployment.baseURL + "/") == true)
        await deployment.stop()
    }

    @Test func sandboxModeKeepsTheConfiguredSecretMethod() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("authflow-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("providers.yaml").path
        try """
        server:
          public_url: http://localhost:8080
        providers:
          google:
            type: google
            client_auth: client_secret_basic
        """.write(toFile: path, atomically: true, encoding: .utf8)
        let deployment = try await SandboxDeployment.start(loading: path, environment: [:])
        #expect(deployment.configuration.providers.first?.clientAuthentication == .clientSecretBasic)
        let google = try #require(try ProviderRegistry.standard.resolve(deployment.configuration).first)
        #expect(google.clientAuthentication == .clientSecretBasic)
        await deployment.stop()
    }

    @Test func aFileThatDoesNotLoadIsRefusedBeforeTheSandboxStarts() async throws {
        await #expect(throws: ConfigurationError.self) {
            _ = try await SandboxDeployment.start(loading: "/nonexistent/providers.yaml", environment: [:])
        }
    }
}
