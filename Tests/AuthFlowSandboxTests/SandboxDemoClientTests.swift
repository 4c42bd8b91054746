import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowSandbox
import Foundation
import Testing

@Suite("Demo clients")
struct SandboxDemoClientTests {
    static func temporaryDirectory() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("authflow-sandbox-test-\(UUID().uuidString)").path
    }

    @Test func writesOwnerOnlyCredentialsThatTheSandboxAccepts() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let clock = ManualClock(Date(timeIntervalSince1970: 1_750_000_000))
        let sandbox = SandboxIdentityProvider(
            configuration: SandboxConfiguration(
                publicBaseURL: "http://127.0.0.1:5555", clock: clock, signingKeys: try SandboxHarness.sharedKeys.get()))
        let clients = try sandbox.registerDemoClients(credentialsDirectory: directory)
        #expect(clients.map(\.provider) == SandboxProvider.allCases)

        for client in clients {
            let file = try #require(client.credentialFile)
            let attributes = try FileManager.default.attributesOfItem(atPath: file)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            let content = try String(contentsOfFile: file, encoding: .utf8)
            if client.provider == .apple {
                // Apple's credential is the .p8 key itself; there is no static secret.
                #expect(client.clientSecret == nil)
                #expect(content.hasPrefix("-----BEGIN PRIVATE KEY-----"))
            } else {
                let secret = try #require(client.clientSecret, "\(client.provider) has no client secret")
                #expect(content == secret)
                #expect(client.maskedSecret == String(secret.prefix(4)) + "…")
                #expect(secret.count >= 32)
            }
        }

        // The written .p8 key signs a client secret the Apple emulator accepts.
        let apple = try #require(clients.first { $0.provider == .apple })
        let keyID = try #require(apple.keyID)
        let pem = try String(contentsOfFile: try #require(apple.credentialFile), encoding: .utf8)
        let key = try JWK(pkcs8PEM: pem, keyID: keyID)
        let secret = try AppleClientSecret.make(
            teamID: try #require(apple.teamID), keyID: keyID, clientID: apple.clientID, privateKey: key,
            issuedAt: clock.now(), lifetime: 600)
        let revoke = await sandbox.handle(
            HTTPServerRequest(
                method: "POST", path: "/apple/auth/revoke",
                headers: ["Content-Type": "application/x-www-form-urlencoded"],
                body: Array(
                    FormURLEncoding.encode([("client_id", apple.clientID), ("client_secret", secret), ("token", "t")])
                        .utf8), remoteAddress: "127.0.0.1"))
        #expect(revoke.status == 200)

        let yaml = try String(contentsOfFile: directory + "/providers.yaml", encoding: .utf8)
        #expect(yaml.contains("token: \"http://127.0.0.1:5555/google/token\""))
        #expect(yaml.contains("issuer: \"http://127.0.0.1:5555/apple\""))
        #expect(yaml.contains("client_secret_file: \"\(directory)/x_client_secret\""))
        #expect(!yaml.contains(try #require(clients[1].clientSecret)))
    }

    @Test func theFragmentListsOnlyTheProvidersAskedFor() throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let sandbox = SandboxIdentityProvider(
            configuration: SandboxConfiguration(
                publicBaseURL: "http://127.0.0.1:5555", signingKeys: try SandboxHarness.sharedKeys.get()))
        let clients = try sandbox.registerDemoClients(credentialsDirectory: directory, inFragment: { $0 != .github })
        #expect(clients.map(\.provider) == SandboxProvider.allCases)  // every client is registered
        #expect(FileManager.default.fileExists(atPath: directory + "/github_client_secret"))
        let yaml = try String(contentsOfFile: directory + "/providers.yaml", encoding: .utf8)
        #expect(!yaml.contains("type: github"))
        #expect(yaml.contains("type: microsoft"))
        #expect(
            yaml.contains(
                "allowed_tenants: [\(SandboxMicrosoftTenant.contoso.id), \(SandboxMicrosoftTenant.fabrikam.id)]"))
        #expect(yaml.contains("issuer: \"http://127.0.0.1:5555/microsoft/{tenantid}/v2.0\""))
        let microsoft = try #require(clients.first { $0.provider == .microsoft })
        let registered = try #require(sandbox.client(.microsoft, clientID: microsoft.clientID))
        #expect(registered.postLogoutRedirectURIs == ["http://localhost:8080/auth/logged-out"])
    }

    @Test func defaultRedirectURIsPointAtALocalServe() throws {
        let sandbox = SandboxIdentityProvider(configuration: SandboxConfiguration(publicBaseURL: "http://s.test"))
        let clients = try sandbox.registerDemoClients()
        #expect(clients.allSatisfy { $0.credentialFile == nil })
        let google = try #require(
            sandbox.client(.google, clientID: SandboxIdentityProvider.demoClientIDs[.google] ?? ""))
        #expect(google.redirectURIs == ["http://localhost:8080/auth/google/callback"])
    }
}
