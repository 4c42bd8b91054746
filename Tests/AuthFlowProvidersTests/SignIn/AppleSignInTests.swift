import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowSandbox
import Testing

@Suite("Apple end to end", .serialized) struct AppleSignInTests {
    static let alice = SandboxIdentity.presets(for: .apple)[0]
    static let bob = SandboxIdentity.presets(for: .apple)[1]

    @Test func firstConsentHandsOverTheUnverifiedNameBeforeTheExchange() async throws {
        try await World.run { world in
            let attempt = try await world.signIn("apple")
            #expect(attempt.callback.method == .post)
            #expect(attempt.callback.parameters.contains { $0.0 == "user" })
            let result = try attempt.result
            #expect(result.identity.provider == "apple")
            #expect(result.identity.subject == Self.alice.subject)
            #expect(result.identity.email == "alice@example.com")
            #expect(result.identity.emailVerified)
            // Apple's booleans arrive as strings.
            #expect(result.identity.rawClaims["email_verified"] == .string("true"))
            #expect(result.identity.rawClaims["is_private_email"] == .string("false"))
            #expect(result.identity.name == nil)
            #expect(
                result.unverifiedProfile
                    == UnverifiedProfile(provider: "apple", firstName: "Alice", lastName: "Example"))
            let calls = world.app.profileCalls
            #expect(calls.count == 1)
            #expect(calls.first?.profile.displayName == "Alice Example")
            // Handed over while no token request had been made yet.
            #expect(calls.first?.tokenRequestsBefore == 0)
            #expect(world.sandbox.requestCounts(for: .apple).token == 1)
        }
    }

    @Test func laterSignInsCarryNoName() async throws {
        try await World.run { world in
            _ = try await world.signIn("apple").identity
            let second = try await world.signIn("apple")
            #expect(!second.callback.parameters.contains { $0.0 == "user" })
            #expect(try second.result.unverifiedProfile == nil)
            #expect(try second.identity.subject == Self.alice.subject)
            #expect(world.app.profileCalls.count == 1)
        }
    }

    @Test func signsInWithAPrivateRelayAddress() async throws {
        try await World.run { world in
            let identity = try await world.signIn("apple", as: .preset(1)).identity
            #expect(identity.subject == Self.bob.subject)
            #expect(identity.email == Self.bob.email)
            #expect(identity.emailVerified)
            #expect(identity.rawClaims["is_private_email"] == .string("true"))
        }
    }

    @Test func cancellingAtTheConsentPageIsAccessDenied() async throws {
        try await World.run { world in
            let attempt = try await world.signIn("apple", as: .cancel)
            #expect(attempt.callback.method == .post)
            #expect(attempt.error?.code == .providerError)
            #expect(attempt.error?.providerError == "access_denied")
            #expect(world.app.profileCalls.isEmpty)
        }
    }

    @Test func refusesTheCallbackAsAGet() async throws {
        try await World.run { world in
            let fresh = try await world.begin("apple")
            let callback = CallbackRequest(
                method: .get,
                url: world.app.callbackURL("apple") + "?state=\(fresh.start.state)&code=c-anything",
                parameters: [("state", fresh.start.state), ("code", "c-anything")])
            let outcome = try await world.deliver(callback, binding: fresh.binding)
            #expect(outcome.failureCode == .wrongCallbackMethod)
        }
    }

    @Test func refusesAReplayedCallbackAndAReplayedCode() async throws {
        try await World.run { world in
            let first = try await world.signIn("apple")
            _ = try first.identity
            #expect(try await world.deliver(first.callback, binding: first.binding).failureCode == .invalidState)
            let fresh = try await world.begin("apple")
            let outcome = try await world.deliver(
                first.callback.replacing("state", with: fresh.start.state), binding: fresh.binding)
            #expect(outcome.failureCode == .tokenEndpointError)
            #expect(outcome.failure?.providerError == "invalid_grant")
        }
    }

    @Test func refusesAnExpiredClientSecret() async throws {
        // The provider's clock is 1000 s ahead: the 300 s secret the app mints has expired by its clock.
        try await World.run(.init(sandboxAhead: 1000)) { world in
            let attempt = try await world.signIn("apple")
            #expect(attempt.error?.code == .tokenEndpointError)
            #expect(attempt.error?.providerError == "invalid_client")
        }
    }

    @Test func refusesAClientSecretSignedWithAnotherKey() async throws {
        try await World.run(.init(appleSigningKey: try E2E.unregisteredAppleKey.get())) { world in
            let attempt = try await world.signIn("apple")
            #expect(attempt.error?.code == .tokenEndpointError)
            #expect(attempt.error?.providerError == "invalid_client")
        }
    }

    @Test func refusesAnIDTokenThatExpiresBeforeItIsVerified() async throws {
        try await World.run { world in
            // Apple's id_tokens live 10 minutes; the app's clock jumps 11 minutes while the answer travels.
            let clock = world.clock
            world.interposer.onResponse { path, _ in
                if path == "/apple/auth/token" { clock.advance(by: 660) }
            }
            let attempt = try await world.signIn("apple")
            #expect(attempt.error?.code == .idTokenInvalid)
            #expect(attempt.error?.joseCode == .tokenExpired)
            // The name was stored before the exchange failed.
            #expect(world.app.profileCalls.count == 1)
        }
    }

    @Test(arguments: [true, false])
    func signsInWithoutNameOrEmailScopes(formPost: Bool) async throws {
        try await World.run(.init(apple: ["form_post": formPost], appleScopes: [])) { world in
            let attempt = try await world.signIn("apple")
            #expect(attempt.callback.method == (formPost ? .post : .get))
            #expect((World.queryValue("response_mode", in: attempt.start.redirectURL) == "form_post") == formPost)
            #expect(World.queryValue("scope", in: attempt.start.redirectURL) == "openid")
            let result = try attempt.result
            #expect(result.identity.subject == Self.alice.subject)
            #expect(result.identity.email == nil)
            #expect(!result.identity.emailVerified)
            #expect(result.unverifiedProfile == nil)
            #expect(world.app.profileCalls.isEmpty)
        }
    }

    @Test func refusesToSwitchFormPostOffWhileNameOrEmailIsRequested() async throws {
        do {
            try await World.run(.init(apple: ["form_post": false])) { _ in }
            Issue.record("expected a configuration error")
        } catch let error as ConfigurationError {
            #expect(error.issues.map(\.code.rawValue) == ["required_capability"])
        }
    }
}
