import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowSandbox
import Testing

@Suite("Google end to end", .serialized) struct GoogleSignInTests {
    static let alice = SandboxIdentity.presets(for: .google)[0]
    static let bob = SandboxIdentity.presets(for: .google)[1]

    @Test(arguments: [true, false], [true, false])
    func signsInUnderEveryCapabilityCombination(oidc: Bool, pkce: Bool) async throws {
        try await World.run(.init(google: ["oidc": oidc, "pkce": pkce])) { world in
            let attempt = try await world.signIn("google")
            let identity = try attempt.identity
            #expect(identity.provider == "google")
            #expect(identity.subject == Self.alice.subject)
            #expect(identity.email == "alice@example.com")
            #expect(identity.emailVerified)
            #expect(identity.name == "Alice Example")
            #expect(identity.source == (oidc ? .idToken : .userinfo))
            let url = attempt.start.redirectURL
            #expect((World.queryValue("code_challenge", in: url) != nil) == pkce)
            #expect((World.queryValue("nonce", in: url) != nil) == oidc)
            #expect(World.queryValue("scope", in: url) == (oidc ? "openid email profile" : "email profile"))
            let counts = world.sandbox.requestCounts(for: .google)
            #expect(counts.token == 1)
            #expect(counts.userinfo == (oidc ? 0 : 1))
            #expect(counts.jwks == (oidc ? 1 : 0))
            #expect(try attempt.result.returnTo == "/")
        }
    }

    @Test(arguments: [true, false])
    func reportsAnUnverifiedEmailAsUnverified(oidc: Bool) async throws {
        try await World.run(.init(google: ["oidc": oidc])) { world in
            let identity = try await world.signIn("google", as: .preset(1)).identity
            #expect(identity.subject == Self.bob.subject)
            #expect(identity.email == "bob@example.org")
            #expect(!identity.emailVerified)
        }
    }

    @Test func cancellingAtTheConsentPageIsAccessDenied() async throws {
        try await World.run { world in
            let attempt = try await world.signIn("google", as: .cancel)
            #expect(attempt.error?.code == .providerError)
            #expect(attempt.error?.providerError == "access_denied")
            #expect(world.sandbox.requestCounts(for: .google).token == 0)
        }
    }

    @Test func refusesACallbackFromAnotherBrowser() async throws {
        try await World.run { world in
            let stolen = try await world.signIn("google", cookie: .some("another-browsers-binding"))
            #expect(stolen.error?.code == .browserBindingMismatch)
            let cookieless = try await world.signIn("google", cookie: .some(nil))
            #expect(cookieless.error?.code == .browserBindingMismatch)
            #expect(world.sandbox.requestCounts(for: .google).token == 0)
        }
    }

    @Test func refusesAReplayedCallbackAndAReplayedCode() async throws {
        try await World.run { world in
            let first = try await world.signIn("google")
            _ = try first.identity
            // The same callback again: the state is single-use.
            let replay = try await world.deliver(first.callback, binding: first.binding)
            #expect(replay.failureCode == .invalidState)
            // The used code under a fresh, valid state: the provider refuses it.
            let fresh = try await world.begin("google")
            let smuggled = first.callback.replacing("state", with: fresh.start.state)
            let outcome = try await world.deliver(smuggled, binding: fresh.binding)
            #expect(outcome.failureCode == .tokenEndpointError)
            #expect(outcome.failure?.providerError == "invalid_grant")
            #expect(world.sandbox.requestCounts(for: .google).token == 2)
        }
    }

    @Test func refusesAMissingPKCEVerifier() async throws {
        try await World.run { world in
            world.interposer.onRequest { request in
                guard request.path == "/google/token" else { return }
                request.form = request.form.filter { $0.0 != "code_verifier" }
            }
            let attempt = try await world.signIn("google")
            #expect(attempt.error?.code == .tokenEndpointError)
            #expect(attempt.error?.providerError == "invalid_grant")
        }
    }

    @Test func refusesAWrongPKCEVerifier() async throws {
        try await World.run { world in
            world.interposer.onRequest { request in
                guard request.path == "/google/token" else { return }
                request.form = request.form.map {
                    $0.0 == "code_verifier" ? ($0.0, String(repeating: "A", count: 43)) : $0
                }
            }
            let attempt = try await world.signIn("google")
            #expect(attempt.error?.code == .tokenEndpointError)
            #expect(attempt.error?.providerError == "invalid_grant")
        }
    }

    @Test func refusesAnIDTokenThatExpiredAtTheProvider() async throws {
        // The provider's clock is two hours behind: its freshly signed token has already expired.
        try await World.run(.init(sandboxAhead: -7200)) { world in
            let attempt = try await world.signIn("google")
            #expect(attempt.error?.code == .idTokenInvalid)
            #expect(attempt.error?.joseCode == .tokenExpired)
        }
    }

    @Test func refusesAnIDTokenIssuedInTheFuture() async throws {
        try await World.run(.init(sandboxAhead: 7200)) { world in
            let attempt = try await world.signIn("google")
            #expect(attempt.error?.code == .idTokenInvalid)
            #expect(attempt.error?.joseCode == .issuedInFuture)
        }
    }
}

extension Result where Failure == SignInError {
    var failure: SignInError? {
        if case .failure(let error) = self { return error }
        return nil
    }

    var failureCode: SignInError.Code? { failure?.code }
}
