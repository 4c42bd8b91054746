import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowProviders
import AuthFlowSandbox
import Testing

/// An application's own provider plugin, defined here outside the package's built-ins: an OpenID Connect
/// issuer ("Acme SSO") that requires PKCE, authenticates clients with HTTP Basic, and shows users by their
/// given name only.
struct AcmeSSOPlugin: ProviderPlugin, IdentityStrategy {
    /// No default endpoints: every endpoint comes from `endpoints:` in configuration.
    var about: ProviderDescription {
        ProviderDescription(
            type: "acme", displayName: "Acme SSO", endpoints: ProviderEndpoints(), scopes: ["email", "profile"])
    }

    func support(for capability: Capability, settings: ProviderSettings) -> CapabilitySupport {
        switch capability {
        case .oidc, .pkce: .required
        case .jwtClientAuth, .formPost: .unsupported(reason: "Acme SSO offers neither")
        }
    }

    var tokenEndpoint: any TokenEndpointStrategy { StandardTokenEndpoint(.clientSecretBasic) }

    var identity: any IdentityStrategy { self }

    func identity(fromIDToken claims: JWTClaims, provider: ResolvedProvider) throws(SignInError) -> VerifiedIdentity {
        guard let subject = claims.subject, !subject.isEmpty else {
            throw SignInError(
                .idTokenInvalid, "expected a sub claim, found none", provider: provider.name, claim: "sub")
        }
        return VerifiedIdentity(
            provider: provider.name, subject: subject, email: claims.string("email"),
            emailVerified: claims.flag("email_verified") ?? false, name: claims.string("given_name"),
            source: .idToken, rawClaims: claims.json)
    }
}

@Suite("An application's own plugin end to end", .serialized) struct ApplicationPluginSignInTests {
    static func options() -> World.Options {
        var registry = ProviderRegistry.standard
        registry.register(AcmeSSOPlugin())
        return World.Options(
            registry: registry,
            extraProviders: { urls in
                """
                  acme:
                    type: acme
                    client_id: \(E2E.googleClientID)
                    client_secret: \(E2E.googleSecret)
                    issuer: \(urls.sandbox)/google
                    redirect_uri: \(urls.app)/auth/acme/callback
                    endpoints:
                      authorization: \(urls.sandbox)/google/o/oauth2/v2/auth
                      token: \(urls.interposer)/google/token
                      jwks: \(urls.sandbox)/google/oauth2/v3/certs
                """
            },
            extraGoogleClients: ["acme"])
    }

    @Test func signsInAgainstAGenericOIDCIssuer() async throws {
        try await World.run(Self.options()) { world in
            #expect(ProviderRegistry.standard.plugin(forType: "acme") == nil)
            let acme = try #require(world.providers.first { $0.name == "acme" })
            #expect(acme.capabilities == [.oidc, .pkce])
            let attempt = try await world.signIn("acme")
            let identity = try attempt.identity
            #expect(identity.provider == "acme")
            #expect(identity.subject == SandboxIdentity.presets(for: .google)[0].subject)
            #expect(identity.email == "alice@example.com")
            #expect(identity.emailVerified)
            #expect(identity.name == "Alice")
            #expect(World.queryValue("code_challenge_method", in: attempt.start.redirectURL) == "S256")
            #expect(world.sandbox.requestCounts(for: .google).userinfo == 0)
        }
    }

    @Test func refusesATamperedTokenLikeTheBuiltIns() async throws {
        try await World.run(Self.options()) { world in
            world.interposer.onResponse { path, response in
                guard path == "/google/token" else { return }
                TokenTampering.rewritingIDToken(&response) { try TokenTampering.corruptedSignature($0) }
            }
            let attempt = try await world.signIn("acme")
            #expect(attempt.error?.code == .idTokenInvalid)
            #expect(attempt.error?.joseCode == .invalidSignature)
        }
    }
}
