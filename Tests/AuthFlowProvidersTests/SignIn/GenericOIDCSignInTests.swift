import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowOIDC
import AuthFlowSandbox
import Testing

/// `type: oidc` configured with nothing but the issuer: endpoints, algorithms, PKCE and client
/// authentication come from the sandbox's Google discovery document.
@Suite("Generic OpenID Connect end to end", .serialized) struct GenericOIDCSignInTests {
    static let alice = SandboxIdentity.presets(for: .google)[0]

    @Test func signsInWithWhatDiscoverySaid() async throws {
        try await World.run { world in
            let corp = try #require(world.providers.first { $0.name == "corp" })
            let endpoints = world.sandbox.endpoints(for: .google)
            #expect(corp.type == "oidc")
            #expect(corp.endpoints.authorization == endpoints.authorization)
            #expect(corp.endpoints.token == endpoints.token)
            #expect(corp.endpoints.jwks == endpoints.jwks)
            #expect(corp.capabilities == [.oidc, .pkce])
            #expect(corp.clientAuthentication == .clientSecretBasic)

            let attempt = try await world.signIn("corp")
            let identity = try attempt.identity
            #expect(identity.provider == "corp")
            #expect(identity.subject == Self.alice.subject)
            #expect(identity.email == "alice@example.com")
            #expect(identity.emailVerified)
            #expect(identity.name == "Alice Example")
            #expect(identity.source == .idToken)
            #expect(World.queryValue("code_challenge_method", in: attempt.start.redirectURL) == "S256")
            let userinfo = try #require(try attempt.result.trace.first { $0.step == .userinfo })
            #expect(userinfo.checks.contains("subject_matches_id_token"))
            let counts = world.sandbox.requestCounts(for: .google)
            #expect(counts.token == 1)
            #expect(counts.userinfo == 1)
            #expect(counts.jwks == 1)
            // Both oidc providers share the issuer: one discovery fetch for the world.
            #expect(counts.discovery == 1)
            #expect(await world.discovery.fetchCount == 1)
        }
    }

    @Test func signsInATypedIdentityWithAnUnverifiedEmail() async throws {
        try await World.run { world in
            let identity = try await world.signIn(
                "corp",
                as: .custom(
                    subject: "corp-user-42", email: "carol@corp.example", name: "Carol Corp", emailVerified: false)
            ).identity
            #expect(identity.subject == "corp-user-42")
            #expect(identity.email == "carol@corp.example")
            #expect(!identity.emailVerified)
            #expect(identity.name == "Carol Corp")
        }
    }

    @Test func refusesAReplayedCode() async throws {
        try await World.run { world in
            let first = try await world.signIn("corp")
            _ = try first.identity
            let fresh = try await world.begin("corp")
            let outcome = try await world.deliver(
                first.callback.replacing("state", with: fresh.start.state), binding: fresh.binding)
            #expect(outcome.failureCode == .tokenEndpointError)
            #expect(outcome.failure?.providerError == "invalid_grant")
        }
    }
}
