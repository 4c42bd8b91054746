import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowSandbox
import Testing

/// Back-channel refusals for every provider, played by the interposer: a client credential the provider
/// does not accept, and a profile without the subject the identity is keyed on.
@Suite("Back-channel refusals end to end", .serialized) struct BackChannelTests {
    enum Target: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case apple, google, facebook, x
        var testDescription: String { rawValue }
    }

    /// Replaces the client's credential on its way to the token endpoint.
    static func forgeCredential(_ request: inout Interposer.Forwarded, target: Target) {
        switch target {
        case .apple, .google:
            guard request.path == (target == .apple ? "/apple/auth/token" : "/google/token") else { return }
            request.form = request.form.map { $0.0 == "client_secret" ? ($0.0, $0.1 + "x") : $0 }
        case .facebook:
            guard request.path.hasSuffix("/oauth/access_token") else { return }
            request.query = request.query.map { $0.0 == "client_secret" ? ($0.0, "wrong-secret") : $0 }
        case .x:
            guard request.path == "/x/2/oauth2/token" else { return }
            var forged = HTTPClientRequest(url: "http://unused.invalid")
            forged.setBasicAuthorization(user: E2E.xClientID, password: "wrong-secret")
            request.headers["Authorization"] = forged.headers["Authorization"]
        }
    }

    @Test(arguments: Target.allCases)
    func refusesAClientCredentialTheProviderDoesNotAccept(target: Target) async throws {
        try await World.run { world in
            world.interposer.onRequest { Self.forgeCredential(&$0, target: target) }
            let attempt = try await world.signIn(target.rawValue)
            let error = try #require(attempt.error)
            #expect(error.code == .tokenEndpointError)
            switch target {
            case .apple, .google, .x: #expect(error.providerError == "invalid_client")
            case .facebook: #expect(error.upstreamStatus == 400)
            }
            let emulator = SandboxProvider(rawValue: target.rawValue) ?? .google
            #expect(world.sandbox.requestCounts(for: emulator).userinfo == 0)
        }
    }

    @Test(arguments: [Target.google, .facebook, .x])
    func refusesAProfileWithoutItsSubject(target: Target) async throws {
        try await World.run(.init(google: ["oidc": false])) { world in
            world.interposer.onResponse { path, response in
                switch target {
                case .google where path == "/google/v1/userinfo":
                    TokenTampering.rewritingJSON(&response) { $0["sub"] = nil }
                case .facebook where path == "/facebook/me":
                    TokenTampering.rewritingJSON(&response) { $0["id"] = nil }
                case .x where path == "/x/2/users/me":
                    TokenTampering.rewritingJSON(&response) { body in
                        var data = body["data"]?.objectValue ?? [:]
                        data["id"] = nil
                        body["data"] = .object(data)
                    }
                default:
                    break
                }
            }
            let attempt = try await world.signIn(target.rawValue)
            #expect(attempt.error?.code == .userinfoError)
        }
    }

    @Test(arguments: [Target.google, .facebook, .x])
    func refusesAProfileEndpointThatRefusesTheToken(target: Target) async throws {
        try await World.run(.init(google: ["oidc": false])) { world in
            // The access token is altered on its way to the profile endpoint: the provider answers 401/400.
            world.interposer.onRequest { request in
                guard ["/google/v1/userinfo", "/facebook/me", "/x/2/users/me"].contains(request.path) else { return }
                if let bearer = request.headers["Authorization"] { request.headers["Authorization"] = bearer + "x" }
            }
            let attempt = try await world.signIn(target.rawValue)
            #expect(attempt.error?.code == .userinfoError)
            #expect((400..<500).contains(attempt.error?.upstreamStatus ?? 0))
        }
    }
}
