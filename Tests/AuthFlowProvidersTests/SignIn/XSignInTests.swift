import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowSandbox
import Synchronization
import Testing

@Suite("X end to end", .serialized) struct XSignInTests {
    static let alice = SandboxIdentity.presets(for: .x)[0]

    @Test func signsInWithPKCEAndBasicClientAuthentication() async throws {
        try await World.run { world in
            let authorizations = Mutex<[String]>([])
            world.interposer.onRequest { request in
                if request.path == "/x/2/oauth2/token" {
                    let value = request.headers["Authorization"] ?? "none"
                    authorizations.withLock { $0.append(value) }
                }
            }
            let attempt = try await world.signIn("x")
            let identity = try attempt.identity
            #expect(identity.provider == "x")
            #expect(identity.subject == Self.alice.subject)
            // A confirmed email, asked for with users.email and user.fields=confirmed_email.
            #expect(identity.email == "alice@example.com")
            #expect(identity.emailVerified)
            #expect(identity.name == "Alice Example")
            #expect(identity.source == .userinfo)
            #expect(World.queryValue("code_challenge_method", in: attempt.start.redirectURL) == "S256")
            #expect(authorizations.withLock { $0 }.allSatisfy { $0.hasPrefix("Basic ") })
            #expect(authorizations.withLock { $0.count } == 1)
            #expect(try attempt.result.tokens.refreshToken != nil)
        }
    }

    @Test func signsInAUserWithoutAnEmail() async throws {
        try await World.run { world in
            let identity = try await world.signIn("x", as: .preset(1)).identity
            #expect(identity.subject == SandboxIdentity.presets(for: .x)[1].subject)
            #expect(identity.email == nil)
            #expect(!identity.emailVerified)
        }
    }

    @Test func cancellingAtTheConsentPageIsAccessDenied() async throws {
        try await World.run { world in
            let attempt = try await world.signIn("x", as: .cancel)
            #expect(attempt.error?.code == .providerError)
            #expect(attempt.error?.providerError == "access_denied")
        }
    }

    @Test func refusesAMissingPKCEVerifier() async throws {
        try await World.run { world in
            world.interposer.onRequest { request in
                guard request.path == "/x/2/oauth2/token" else { return }
                request.form = request.form.filter { $0.0 != "code_verifier" }
            }
            let attempt = try await world.signIn("x")
            #expect(attempt.error?.code == .tokenEndpointError)
            #expect(attempt.error?.providerError == "invalid_request")
        }
    }

    @Test func refusesAWrongPKCEVerifier() async throws {
        try await World.run { world in
            world.interposer.onRequest { request in
                guard request.path == "/x/2/oauth2/token" else { return }
                request.form = request.form.map {
                    $0.0 == "code_verifier" ? ($0.0, String(repeating: "B", count: 43)) : $0
                }
            }
            let attempt = try await world.signIn("x")
            #expect(attempt.error?.code == .tokenEndpointError)
            #expect(attempt.error?.providerError == "invalid_grant")
        }
    }

    @Test func refusesAReplayedCode() async throws {
        try await World.run { world in
            let first = try await world.signIn("x")
            _ = try first.identity
            #expect(try await world.deliver(first.callback, binding: first.binding).failureCode == .invalidState)
            let fresh = try await world.begin("x")
            let outcome = try await world.deliver(
                first.callback.replacing("state", with: fresh.start.state), binding: fresh.binding)
            #expect(outcome.failureCode == .tokenEndpointError)
            #expect(outcome.failure?.providerError == "invalid_grant")
        }
    }
}
