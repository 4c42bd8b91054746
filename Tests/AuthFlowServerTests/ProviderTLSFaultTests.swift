import AuthFlow
import AuthFlowBrowserTestSupport
import AuthFlowDeployment
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowProviders
import AuthFlowSandbox
import Testing

@testable import AuthFlowServer

/// A provider endpoint on `https://127.0.0.1:PORT` whose TLS fails: a certificate the server does not trust, a
/// listener that does not speak TLS, a connection closed at once. Each sign-in ends in a typed error the user
/// sees, writes nothing, and leaves the server healthy; when the endpoint presents a certificate from the
/// authority the server trusts, the same sign-in works (so the refusal is the TLS check, not the setup).
@Suite(
    "Provider faults: TLS failures",
    .enabled(if: TLSProvider.available || TLSProvider.required, "needs AUTHFLOW_PYTHON with cryptography"))
struct ProviderTLSFaultTests {
    /// Which of Google's endpoints sits behind the TLS listener.
    enum Endpoint {
        case token
        case jwks
    }

    /// Runs `body` against a deployment whose Google `endpoint` is the TLS listener (relaying to the sandbox),
    /// with a server HTTP client that trusts only the listener's authority.
    func withTLSEndpoint(
        _ endpoint: Endpoint, _ body: (TestDeployment, TLSProvider) async throws -> Void
    ) async throws {
        let tls = try await TLSProvider()
        var settings = TestDeployment.Settings()
        settings.httpTimeout = 5
        settings.caBundlePath = tls.authorityPath
        settings.adapt = { configuration, sandbox in
            let providers = configuration.providers.map { provider in
                provider.name == "google"
                    ? Self.moving(endpoint, of: provider, from: sandbox.baseURL, to: tls.baseURL)
                    : provider
            }
            let moved = Configuration(
                server: configuration.server, sandbox: configuration.sandbox, store: configuration.store,
                providers: providers)
            return (moved, ProviderRegistry.standard)
        }
        try await TestDeployment.with(settings) { app in
            try await tls.forward(to: app.sandbox.baseURL)
            try await body(app, tls)
        }
    }

    /// `provider` with its token endpoint or JWKS URL moved from the sandbox's base URL to `base`.
    static func moving(_ endpoint: Endpoint, of provider: ProviderSettings, from sandbox: String, to base: String)
        -> ProviderSettings
    {
        let old = provider.endpoints
        func moved(_ url: String?) -> String? { url.map { base + $0.dropFirst(sandbox.count) } }
        let endpoints = ProviderEndpoints(
            authorization: old.authorization, token: endpoint == .token ? moved(old.token) : old.token,
            userinfo: old.userinfo, jwks: endpoint == .jwks ? moved(old.jwks) : old.jwks, revocation: old.revocation)
        return ProviderSettings(
            name: provider.name, type: provider.type, clientID: provider.clientID, clientSecret: provider.clientSecret,
            audiences: provider.audiences, teamID: provider.teamID, keyID: provider.keyID,
            privateKey: provider.privateKey, scopes: provider.scopes, capabilities: provider.capabilities,
            redirectURI: provider.redirectURI, issuer: provider.issuer, endpoints: endpoints,
            authorizationParameters: provider.authorizationParameters, location: provider.location,
            typeLocation: provider.typeLocation, capabilityLocations: provider.capabilityLocations,
            keyLocations: provider.keyLocations)
    }

    /// Signs in with Google while the listener is in `mode` and checks the refusal (`code`, and `reason` in the
    /// message the user sees), then puts the trusted certificate back and checks that the same identity signs in.
    func expectRefusal(
        _ app: TestDeployment, _ tls: TLSProvider, mode: TLSProvider.Mode, code: String, reason: String?,
        identity: SandboxIdentity = People.alice
    ) async throws {
        try await tls.set(mode)
        let browser = TestBrowser()
        let response = try await app.signIn(browser, provider: "google", as: identity)
        #expect(response.status == 401, "\(mode): \(response.status) \(response.text)")
        #expect(errorCode(response) == code, "\(mode): \(response.text)")
        if let reason {
            let message = (try? JSONValue.parse(response.body))?["message"]?.stringValue ?? ""
            #expect(message.contains(reason), "\(mode): \(message)")
        }
        #expect(browser.cookie(app.sessionCookie, for: app.appURL) == nil)
        let key = IdentityKey(provider: "google", subject: identity.subject)
        #expect(try await app.stores.accounts.identity(key) == nil, "an account was written")
        #expect(try await app.stores.accounts.tokens(for: key) == nil, "tokens were written")
        #expect(try await browser.get(app.appURL + "/healthz").status == 200)
        // The endpoint presents a trusted certificate again: the next sign-in works (past the JWKS cache's
        // refetch interval, which a failed first fetch waits out).
        try await tls.set(.trusted)
        app.clock.advance(by: 11)
        let again = TestBrowser()
        let retried = try await app.signIn(again, provider: "google", as: identity)
        #expect(retried.status == 302, "after \(mode): \(retried.status) \(retried.text)")
        #expect(try await app.session(again).status == 200)
    }

    @Test func aTokenEndpointWithACertificateTheServerDoesNotTrust() async throws {
        try await withTLSEndpoint(.token) { app, tls in
            try await expectRefusal(app, tls, mode: .untrusted, code: "provider_unreachable", reason: "tls_failure")
        }
    }

    @Test func aTokenEndpointThatDoesNotSpeakTLS() async throws {
        try await withTLSEndpoint(.token) { app, tls in
            try await expectRefusal(app, tls, mode: .garbage, code: "provider_unreachable", reason: "tls_failure")
        }
    }

    @Test func aTokenEndpointThatClosesTheConnectionDuringTheHandshake() async throws {
        try await withTLSEndpoint(.token) { app, tls in
            // libcurl reports a reset during the handshake as a TLS or a connection failure, by timing.
            try await expectRefusal(app, tls, mode: .close, code: "provider_unreachable", reason: nil)
        }
    }

    @Test func aKeySetWithACertificateTheServerDoesNotTrust() async throws {
        try await withTLSEndpoint(.jwks) { app, tls in
            // The key-set cache names the transport's reason; the trusted retry below shows that the certificate
            // was the cause.
            try await expectRefusal(
                app, tls, mode: .untrusted, code: "jwks_unavailable", reason: "the fetch failed (tls_failure: ")
        }
    }

    @Test func aTrustedEndpointSignsInThroughTheListener() async throws {
        try await withTLSEndpoint(.token) { app, tls in
            // The control: the same path with the trusted certificate signs in, and the next one too.
            for identity in [People.alice, People.bob] {
                let browser = TestBrowser()
                #expect(try await app.signIn(browser, provider: "google", as: identity).status == 302)
                #expect(try await app.session(browser).status == 200)
            }
            // Stopping the listener's relay proves the sign-ins went through it.
            try await tls.forward(to: "http://127.0.0.1:9")
            let refused = try await app.signIn(TestBrowser(), provider: "google", as: People.carol)
            #expect(errorCode(refused) == "token_endpoint_error", "\(refused.text)")
        }
    }
}
