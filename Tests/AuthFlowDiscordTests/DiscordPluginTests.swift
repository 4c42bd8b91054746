import AuthFlow
import AuthFlowJOSE
import AuthFlowProviderTestSupport
import Foundation
import Testing

/// Discord: the userinfo identity, its email trusted only when verified.
@Suite struct DiscordPluginTests {
    @Test func discordTrustsTheEmailOnlyWhenVerified() throws {
        let provider = try Fixtures.resolve(Fixtures.settings("discord"))
        #expect(provider.signInProtocol == .oauth2)
        #expect(provider.capabilities == [.pkce])
        #expect(provider.endpoints.userinfo == "https://discord.com/api/users/@me")
        func identity(_ body: [String: JSONValue]) -> OAuthFlow.IdentityAction {
            var (flow, _, _) = Fixtures.exchange(provider)
            _ = flow.tokenResponseReceived(Fixtures.tokenResponse(idToken: nil), now: Fixtures.now)
            return flow.userinfoResponseReceived(Fixtures.json(body), now: Fixtures.now)
        }
        guard
            case .complete(let verified) = identity([
                "id": "80351110224678912", "username": "nelly", "email": "n@b.example", "verified": true,
            ])
        else {
            Issue.record("expected completion")
            return
        }
        #expect(verified.identity.subject == "80351110224678912")
        #expect(verified.identity.name == "nelly")
        #expect(verified.identity.emailLinkable)
        guard case .complete(let unverified) = identity(["id": "1", "email": "n@b.example", "verified": false]) else {
            Issue.record("expected completion")
            return
        }
        #expect(!unverified.identity.emailVerified)
        #expect(!unverified.identity.emailLinkable)
        #expect(identity(["id": .integer(1)]).failure?.claim == "id")
        #expect(identity(["id": "1", "verified": "yes"]).failure?.claim == "verified")
    }
}
