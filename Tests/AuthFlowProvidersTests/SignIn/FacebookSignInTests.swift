import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowSandbox
import Testing

@Suite("Facebook end to end", .serialized) struct FacebookSignInTests {
    static let alice = SandboxIdentity.presets(for: .facebook)[0]

    @Test(arguments: [true, false])
    func signsInWithAndWithoutPKCE(pkce: Bool) async throws {
        try await World.run(.init(facebook: ["pkce": pkce])) { world in
            let attempt = try await world.signIn("facebook")
            let identity = try attempt.identity
            #expect(identity.provider == "facebook")
            #expect(identity.subject == Self.alice.subject)
            #expect(identity.email == "alice@example.com")
            // Facebook never says an email is verified.
            #expect(!identity.emailVerified)
            #expect(identity.name == "Alice Example")
            #expect(identity.source == .userinfo)
            #expect((World.queryValue("code_challenge", in: attempt.start.redirectURL) != nil) == pkce)
            let counts = world.sandbox.requestCounts(for: .facebook)
            #expect(counts.token == 1)
            #expect(counts.userinfo == 1)
        }
    }

    @Test func signsInAUserWithoutAnEmail() async throws {
        try await World.run { world in
            let identity = try await world.signIn("facebook", as: .preset(1)).identity
            #expect(identity.subject == SandboxIdentity.presets(for: .facebook)[1].subject)
            #expect(identity.email == nil)
            #expect(identity.name == "Bob Noemail")
        }
    }

    @Test func cancellingAtTheConsentPageIsAccessDenied() async throws {
        try await World.run { world in
            let attempt = try await world.signIn("facebook", as: .cancel)
            #expect(attempt.error?.code == .providerError)
            #expect(attempt.error?.providerError == "access_denied")
        }
    }

    @Test func refusesAReplayedCode() async throws {
        try await World.run { world in
            let first = try await world.signIn("facebook")
            _ = try first.identity
            #expect(try await world.deliver(first.callback, binding: first.binding).failureCode == .invalidState)
            let fresh = try await world.begin("facebook")
            let outcome = try await world.deliver(
                first.callback.replacing("state", with: fresh.start.state), binding: fresh.binding)
            #expect(outcome.failureCode == .tokenEndpointError)
            #expect(outcome.failure?.upstreamStatus == 400)
        }
    }

    @Test func refusesAMissingPKCEVerifier() async throws {
        try await World.run { world in
            world.interposer.onRequest { request in
                guard request.path.hasSuffix("/oauth/access_token") else { return }
                request.query = request.query.filter { $0.0 != "code_verifier" }
            }
            let attempt = try await world.signIn("facebook")
            #expect(attempt.error?.code == .tokenEndpointError)
            #expect(world.sandbox.requestCounts(for: .facebook).userinfo == 0)
        }
    }
}
