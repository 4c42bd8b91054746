import AuthFlow
import AuthFlowJOSE
import AuthFlowProviderTestSupport
import Foundation
import Testing

/// Slack: the user keyed by workspace, and `base_url` refused.
@Suite struct SlackPluginTests {
    @Test func slackKeysTheUserByWorkspace() throws {
        let provider = try Fixtures.resolve(Fixtures.settings("slack"))
        #expect(provider.issuer == "https://slack.com")
        #expect(provider.endpoints.authorization == "https://slack.com/openid/connect/authorize")
        guard
            case .complete(let result) = try signIn(
                provider,
                claims: ["https://slack.com/team_id": "T0001", "email": "a@b.example", "email_verified": true])
        else {
            Issue.record("expected completion")
            return
        }
        #expect(result.identity.subject == "T0001:user-1")
        let missing = try signIn(provider, claims: [:]).failure
        #expect(missing?.code == .idTokenInvalid)
        #expect(missing?.claim == "https://slack.com/team_id")
    }

    @Test func baseURLIsRefusedWhereThePluginDoesNotReadIt() {
        var settings = Fixtures.settings("slack")
        settings = ProviderSettings(
            name: "slack", type: "slack", clientID: "client-id", clientSecret: Secret("s"),
            location: Fixtures.location(), keyLocations: ["base_url": Fixtures.location(9, 5)])
        settings.options["base_url"] = .string("https://slack.example")
        let issues = Fixtures.issues(settings)
        #expect(issues.first?.location?.line == 9)
    }
}
