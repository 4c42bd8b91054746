import AuthFlow
import AuthFlowBrowserTestSupport
import AuthFlowDeployment
import AuthFlowHTTP
import AuthFlowOIDC
import AuthFlowProviders
import AuthFlowSandbox
import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlowServer

/// A `type: oidc` provider configured with only its issuer: the documented asynchronous entry discovers it and
/// signs in; the synchronous one refuses it before anything is served, naming the asynchronous entry.
@Suite("Resolving type: oidc through the documented entry")
struct DiscoveryEntryTests {
    /// The sandbox's Google as a generic `type: oidc` provider with nothing but its issuer.
    static func settings(async: Bool) -> TestDeployment.Settings {
        var settings = TestDeployment.Settings()
        settings.providers = ["google"]
        settings.resolvesWithDiscovery = async
        settings.adapt = { configuration, sandbox in
            let providers = configuration.providers.map { google in
                ProviderSettings(
                    name: google.name, type: "oidc", clientID: google.clientID, clientSecret: google.clientSecret,
                    scopes: ["openid", "email"], redirectURI: google.redirectURI,
                    issuer: sandbox.issuer(for: .google), location: google.location)
            }
            let rewritten = Configuration(
                server: configuration.server, sandbox: configuration.sandbox, store: configuration.store,
                providers: providers)
            return (rewritten, ProviderRegistry.standard)
        }
        return settings
    }

    @Test func theAsynchronousEntryDiscoversTheIssuerAndSignsIn() async throws {
        try await TestDeployment.with(Self.settings(async: true)) { app in
            #expect(app.server.providers["google"]?.type == "oidc")
            let browser = TestBrowser()
            let done = try await app.signIn(browser, provider: "google", as: People.alice)
            #expect(done.status == 302)
            let session = try await app.session(browser)
            #expect(session.status == 200)
            #expect(session.json?.objectValue?["subject"]?.stringValue == "alice-1")
        }
    }

    static func configuration(endpoints: ProviderEndpoints = ProviderEndpoints()) -> Configuration {
        let location = SourceLocation(fileName: "providers.yaml", line: 7, column: 3, sourceLine: "  corp:")
        let issuerAt = SourceLocation(fileName: "providers.yaml", line: 9, column: 13, sourceLine: "")
        return Configuration(
            server: ServerSettings(
                publicURL: "https://app.example", secret: Secret(String(repeating: "s", count: 32))),
            store: StoreSettings(kind: .memory),
            providers: [
                ProviderSettings(
                    name: "corp", type: "oidc", clientID: "client", clientSecret: Secret("client-secret"),
                    scopes: ["openid"], issuer: "https://issuer.example", endpoints: endpoints, location: location,
                    keyLocations: ["issuer": issuerAt])
            ])
    }

    @Test func theSynchronousEntryRefusesAnUndiscoveredIssuerNamingTheAsynchronousOne() throws {
        let clock = SystemClock()
        do {
            _ = try SignInServer(
                configuration: Self.configuration(), registry: .standard, stores: .memory(clock: clock),
                httpClient: CurlHTTPClient())
            Issue.record("expected discovery_required")
        } catch {
            #expect(error.issues.map(\.code.rawValue) == ["discovery_required"])
            let issue = try #require(error.issues.first)
            #expect(issue.location?.line == 9)
            #expect(issue.message.contains("provider 'corp' (type oidc)"))
            #expect(issue.message.contains("SignInServer(resolving:registry:stores:httpClient:)"))
            #expect(issue.message.contains("ProviderRegistry.resolve(_:httpClient:)"))
        }
    }

    @Test func theAsynchronousEntryRefusesAnIssuerItCannotDiscoverBeforeServing() async throws {
        var configuration = Self.configuration()
        let port = try LoopbackPort.unused()
        let corp = configuration.providers[0]
        configuration = Configuration(
            server: configuration.server, store: configuration.store,
            providers: [
                ProviderSettings(
                    name: corp.name, type: "oidc", clientID: corp.clientID, clientSecret: corp.clientSecret,
                    scopes: corp.scopes, issuer: "http://127.0.0.1:\(port)", location: corp.location,
                    keyLocations: corp.keyLocations)
            ])
        do {
            _ = try await SignInServer(
                resolving: configuration, registry: .standard, stores: .memory(clock: SystemClock()),
                httpClient: CurlHTTPClient(configuration: .init(defaultTimeout: 5)))
            Issue.record("expected discovery_failed")
        } catch {
            #expect(error.issues.map(\.code.rawValue) == ["discovery_failed"])
            #expect(error.issues.first?.location?.line == 9)
        }
    }
}
