import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowOIDC
import AuthFlowSandbox
import Testing

/// Discovery against the sandbox's emulators, which serve `/{provider}/.well-known/openid-configuration`.
@Suite struct SandboxDiscoveryTests {
    /// Runs `body` with a started sandbox and always stops it.
    func withSandbox<T>(
        _ configuration: SandboxConfiguration = SandboxConfiguration(),
        _ body: (SandboxIdentityProvider) async throws -> T
    ) async throws -> T {
        let sandbox = SandboxIdentityProvider(configuration: configuration)
        try sandbox.start()
        do {
            let result = try await body(sandbox)
            await sandbox.stop()
            return result
        } catch {
            await sandbox.stop()
            throw error
        }
    }

    @Test func readsTheSandboxGoogleDocument() async throws {
        try await withSandbox { sandbox in
            let endpoints = sandbox.endpoints(for: .google)
            let issuer = try #require(sandbox.issuer(for: .google))
            let discovery = OIDCDiscovery(httpClient: OIDCDiscoveryTests.client, timeout: 60)
            let metadata = try await discovery.metadata(for: issuer)
            #expect(metadata.issuer == issuer)
            #expect(metadata.authorizationEndpoint == endpoints.authorization)
            #expect(metadata.tokenEndpoint == endpoints.token)
            #expect(metadata.userinfoEndpoint == endpoints.userinfo)
            #expect(metadata.jwksURI == endpoints.jwks)
            #expect(metadata.revocationEndpoint == endpoints.revocation)
            #expect(metadata.idTokenAlgorithms == [JWSAlgorithm.rs256])
            #expect(metadata.supportsPKCE)
            #expect(metadata.clientAuthentication == ClientAuthentication.clientSecretBasic)
            #expect(sandbox.requestCounts(for: .google).discovery == 1)
        }
    }

    @Test func readsTheSandboxAppleDocument() async throws {
        try await withSandbox { sandbox in
            let discovery = OIDCDiscovery(httpClient: OIDCDiscoveryTests.client, timeout: 60)
            let metadata = try await discovery.metadata(for: try #require(sandbox.issuer(for: .apple)))
            #expect(metadata.clientAuthentication == ClientAuthentication.clientSecretPost)
            #expect(!metadata.supportsPKCE)
            #expect(metadata.supportsFormPost)
            #expect(metadata.userinfoEndpoint == nil)
        }
    }

    @Test func refusesADocumentWhoseIssuerIsNotTheURLItWasDiscoveredAt() async throws {
        // The sandbox told to claim Google's real issuer serves a document naming it under a loopback URL.
        let configuration = SandboxConfiguration(issuerOverrides: [.google: "https://accounts.google.com"])
        try await withSandbox(configuration) { sandbox in
            let discovery = OIDCDiscovery(httpClient: OIDCDiscoveryTests.client, timeout: 60)
            do throws(OIDCDiscoveryError) {
                _ = try await discovery.metadata(for: sandbox.baseURL + "/google")
                Issue.record("expected issuer_mismatch")
            } catch {
                #expect(error.code == .issuerMismatch)
            }
        }
    }
}
