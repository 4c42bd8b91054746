import AuthFlow
import AuthFlowJOSE
import AuthFlowProviderTestSupport
import Foundation
import Testing

/// GitLab: its endpoints under `base_url`, and the nonce it requires.
@Suite struct GitLabPluginTests {
    @Test func gitLabFollowsItsBaseURL() throws {
        let hosted = try Fixtures.resolve(Fixtures.settings("gitlab"))
        #expect(hosted.issuer == "https://gitlab.com")
        #expect(hosted.endpoints.jwks == "https://gitlab.com/oauth/discovery/keys")
        #expect(hosted.capabilities == [.oidc, .pkce])
        var settings = Fixtures.settings("gitlab")
        settings.options["base_url"] = .string("https://git.corp.example/")
        let own = try Fixtures.resolve(settings)
        #expect(own.issuer == "https://git.corp.example")
        #expect(own.endpoints.token == "https://git.corp.example/oauth/token")
        guard
            case .complete(let result) = try signIn(
                own, claims: ["email": "a@corp.example", "email_verified": true, "groups_direct": .array(["ops"])])
        else {
            Issue.record("expected completion")
            return
        }
        #expect(result.identity.subject == "user-1")
        #expect(result.identity.emailLinkable)
        #expect(result.identity.groups == ["ops"])
        // A token of gitlab.com is not one of the instance.
        #expect(try signIn(own, claims: ["iss": "https://gitlab.com"]).failure?.joseCode == .issuerMismatch)
    }

    @Test func otherProvidersStillRequireTheNonce() throws {
        let provider = try Fixtures.resolve(Fixtures.settings("gitlab"))
        #expect(try signIn(provider, claims: [:], nonce: false).failure?.joseCode == .missingClaim)
    }
}
