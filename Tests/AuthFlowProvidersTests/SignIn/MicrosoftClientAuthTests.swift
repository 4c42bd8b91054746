import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowOIDC
import AuthFlowSandbox
import Foundation
import Testing

/// `type: oidc` pointed at a Microsoft Entra tenant's discovery document in the sandbox, whose token endpoint
/// accepts from each client only the one method it was registered with: each `client_auth` method signs in,
/// and the same client configured with another method is refused `invalid_client`. Entra does not advertise
/// PKCE but checks a challenge it was sent, so forcing PKCE is verified there too.
@Suite("Client authentication against Microsoft Entra's emulator", .serialized) struct MicrosoftClientAuthTests {
    static let tenant = SandboxMicrosoftTenant.contoso
    static let secret = "entra+secret/with=odd%chars:"

    /// One client per method; each configured twice: with its own method and with a wrong one.
    static let cases: [(client: String, method: String, wrong: String)] = [
        ("ms-post-app", "client_secret_post", "client_secret_basic"),
        ("ms-basic-app", "client_secret_basic", "client_secret_post"),
        ("ms-jwt-app", "private_key_jwt", "client_secret_post"),
    ]

    static func name(_ client: String, wrong: Bool) -> String {
        client.replacingOccurrences(of: "-app", with: wrong ? "-wrong" : "")
    }

    static func providers(_ urls: World.URLs) -> String {
        var yaml = ""
        for (client, method, wrong) in cases {
            for (configured, isWrong) in [(method, false), (wrong, true)] {
                let name = name(client, wrong: isWrong)
                let key =
                    configured == "private_key_jwt"
                    ? "    private_key_file: AuthKey.p8\n    key_id: \(E2E.appleKeyID)\n"
                    : "    client_secret: \"\(secret)\"\n"
                yaml += """
                      \(name):
                        type: oidc
                        issuer: \(urls.sandbox)/microsoft/\(tenant.id)/v2.0
                        client_id: \(client)
                        client_auth: \(configured)
                        redirect_uri: \(urls.app)/auth/\(name)/callback
                        capabilities: {pkce: true}

                    """ + key
            }
        }
        return yaml
    }

    static func run(_ body: (World) async throws -> Void) async throws {
        try await World.run(World.Options(extraProviders: providers)) { world in
            let key = try E2E.appleClientKey.get()
            for (client, method, _) in cases {
                let redirects = [false, true].map { world.app.callbackURL(name(client, wrong: $0)) }
                try world.sandbox.register(
                    .microsoft(
                        clientID: client, clientSecret: secret, redirectURIs: redirects,
                        authMethod: SandboxClient.AuthMethod(rawValue: method),
                        assertionKeys: method == "private_key_jwt" ? [key] : []))
            }
            try await body(world)
        }
    }

    @Test func eachMethodSignsInWhereTheIssuerEnforcesIt() async throws {
        try await Self.run { world in
            for (client, method, _) in Self.cases {
                let name = Self.name(client, wrong: false)
                let provider = try #require(world.providers.first { $0.name == name })
                #expect(provider.clientAuthentication.rawValue == method)
                #expect(provider.isEnabled(.pkce))
                let attempt = try await world.signIn(name)
                #expect(World.queryValue("code_challenge_method", in: attempt.start.redirectURL) == "S256")
                let identity = try attempt.identity
                #expect(identity.provider == name)
                #expect(!identity.subject.isEmpty)
            }
        }
    }

    @Test func theSameClientWithAnotherMethodIsRefused() async throws {
        try await Self.run { world in
            for (client, _, wrong) in Self.cases {
                let name = Self.name(client, wrong: true)
                #expect(world.providers.first { $0.name == name }?.clientAuthentication.rawValue == wrong)
                let attempt = try await world.signIn(name)
                #expect(attempt.error?.code == .tokenEndpointError)
                #expect(attempt.error?.providerError == "invalid_client")
            }
        }
    }

    @Test func forcedPKCEIsAdvisedAndCheckedByTheIssuer() async throws {
        try await Self.run { world in
            let provider = try #require(world.providers.first { $0.name == "ms-post" })
            let advice = (provider.plugin as? OIDCPlugin)?.advice(for: provider) ?? []
            #expect(advice.map(\.code) == ["pkce_not_advertised"])
            // A code never redeemed, delivered with a fresh sign-in's state (so another verifier): the issuer's
            // PKCE check is the only thing that can refuse it.
            let start = try await world.signIn.begin(
                provider: "ms-post", returnTo: "/", browserBinding: world.signIn.newBrowserBinding())
            let browser = Browser(client: E2E.client, binding: try TestApp.flowCookie(start.record))
            let answer = try await browser.consent(try await browser.openConsentPage(start.redirectURL), .preset(0))
            let callback = try browser.callback(from: answer)
            let fresh = try await world.begin("ms-post")
            let outcome = try await world.deliver(
                callback.replacing("state", with: fresh.start.state), binding: fresh.binding)
            guard case .failure(let error) = outcome else {
                Issue.record("expected the issuer to refuse a verifier that does not match the challenge")
                return
            }
            #expect(error.code == .tokenEndpointError)
            #expect(error.providerError == "invalid_grant")
        }
    }
}
