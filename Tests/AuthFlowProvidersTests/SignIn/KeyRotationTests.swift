import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowSandbox
import Testing

/// Unknown `kid` handling against the sandbox's real JWKS: a rotated key is accepted after exactly one
/// refetch; a key the provider never published is refused after that one refetch, and a second unknown
/// key within the rate-limit window triggers none.
@Suite("Signing-key rotation end to end", .serialized) struct KeyRotationTests {
    @Test(arguments: ["google", "apple", "corp"])
    func acceptsARotatedKeyAfterExactlyOneJWKSRefetch(provider: String) async throws {
        try await World.run { world in
            let emulator: SandboxProvider = provider == "apple" ? .apple : .google
            _ = try await world.signIn(provider).identity
            #expect(world.sandbox.requestCounts(for: emulator).jwks == 1)
            let sandbox = world.sandbox
            let newKeyID = try await offThePool { try sandbox.rotateSigningKey(for: emulator, keepPrevious: false) }
            let second = try await world.signIn(provider)
            _ = try second.identity
            #expect(world.sandbox.requestCounts(for: emulator).jwks == 2)
            let header = try JWSVerifier.header(of: try #require(try second.result.tokens.idToken))
            #expect(header.keyID == newKeyID)
            #expect(try second.result.trace.contains { $0.step == .jwks && $0.providerRoundTrip })
            // The refreshed set is cached again.
            _ = try await world.signIn(provider).identity
            #expect(world.sandbox.requestCounts(for: emulator).jwks == 2)
        }
    }

    @Test func refusesAKeyTheProviderNeverPublishedAfterOneRefetch() async throws {
        try await World.run { world in
            let foreign = try E2E.foreignKey.get()
            world.interposer.onResponse { path, response in
                guard path == "/google/token" else { return }
                TokenTampering.rewritingIDToken(&response) { try TokenTampering.resigned($0, key: foreign) { _ in } }
            }
            let first = try await world.signIn("google")
            #expect(first.error?.code == .idTokenInvalid)
            #expect(first.error?.joseCode == .keyNotFound)
            // One fetch to fill the cache, one refetch for the unknown kid.
            #expect(world.sandbox.requestCounts(for: .google).jwks == 2)
            // Another unknown kid within 10 s: refused without refetching (rate limit).
            let second = try await world.signIn("google")
            #expect(second.error?.joseCode == .keyNotFound)
            #expect(world.sandbox.requestCounts(for: .google).jwks == 2)
            // Ten seconds later the cache may refetch once more.
            world.clock.advance(by: 11)
            let third = try await world.signIn("google")
            #expect(third.error?.joseCode == .keyNotFound)
            #expect(world.sandbox.requestCounts(for: .google).jwks == 3)
        }
    }
}
