import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowSandbox
import Foundation
import Testing

/// `type: oauth2` configured in YAML alone (endpoints, `claims:`, `client_auth`), signing in at the sandbox's
/// strict GitHub emulator: form-encoded answers unless JSON is asked for, the secret only in the body, a
/// numeric `id`.
@Suite("type oauth2 from YAML against the GitHub emulator", .serialized) struct OAuth2FromYAMLTests {
    static let secret = "plain+oauth/secret=with%odd:chars"

    static func providers(_ urls: World.URLs) -> String {
        var yaml = ""
        for (name, method) in [("gh-plain", "client_secret_post"), ("gh-basic", "client_secret_basic")] {
            yaml += """
                  \(name):
                    type: oauth2
                    client_id: \(name)-app
                    client_secret: "\(secret)"
                    client_auth: \(method)
                    redirect_uri: \(urls.app)/auth/\(name)/callback
                    scopes: [read:user]
                    endpoints:
                      authorization: \(urls.sandbox)/github/login/oauth/authorize
                      token: \(urls.sandbox)/github/login/oauth/access_token
                      userinfo: \(urls.sandbox)/github/user
                    claims: {subject: id, name: name, email: email, email_verified: false}

                """
        }
        return yaml
    }

    static func run(_ body: (World) async throws -> Void) async throws {
        try await World.run(World.Options(extraProviders: providers)) { world in
            for name in ["gh-plain", "gh-basic"] {
                try world.sandbox.register(
                    .github(
                        clientID: "\(name)-app", clientSecret: secret, redirectURIs: [world.app.callbackURL(name)]))
            }
            try await body(world)
        }
    }

    @Test func signsInWithTheMappedNumericSubjectAndAnUnverifiedEmail() async throws {
        try await Self.run { world in
            let provider = try #require(world.providers.first { $0.name == "gh-plain" })
            #expect(provider.clientAuthentication == .clientSecretPost)
            let attempt = try await world.signIn("gh-plain")
            let identity = try attempt.identity
            // GitHub preset 0: id 583231 as a JSON number, a public email, which the policy leaves unverified.
            #expect(identity.subject == "583231")
            #expect(identity.email != nil)
            #expect(!identity.emailVerified && !identity.emailLinkable)
            #expect(identity.source == .userinfo)
        }
    }

    @Test func theEmulatorRefusesBasicClientAuthentication() async throws {
        try await Self.run { world in
            let attempt = try await world.signIn("gh-basic")
            #expect(attempt.error?.code == .tokenEndpointError)
        }
    }
}
