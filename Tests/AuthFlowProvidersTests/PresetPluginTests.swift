import AuthFlow
import AuthFlowJOSE
import AuthFlowProviderTestSupport
import AuthFlowProviders
import Foundation
import Testing

/// GitLab and Slack together: both map the id_token through the core's `IdentityClaims` (each plugin's own
/// tests are in its test target).
@Suite struct PresetPluginTests {
    /// GitLab and Slack map the id_token through the core's `IdentityClaims`: the standard members, their own
    /// subject and groups, and `id_token_invalid` naming `sub` when it is missing or empty.
    @Test func gitLabAndSlackMapTheStandardClaimsThroughTheCoreHelper() throws {
        let gitlab = try Fixtures.resolve(Fixtures.settings("gitlab"))
        let slack = try Fixtures.resolve(Fixtures.settings("slack"))
        let claims = JWTClaims(json: [
            "sub": "u1", "email": "a@b.example", "email_verified": "true", "given_name": "Ada",
            "family_name": "Lovelace", "groups_direct": ["ops", "dev"], "https://slack.com/team_id": "T1",
        ])
        let fromGitLab = try GitLabPlugin().identity.identity(fromIDToken: claims, provider: gitlab)
        #expect(fromGitLab.subject == "u1")
        #expect(fromGitLab.groups == ["ops", "dev"])
        let fromSlack = try SlackPlugin().identity.identity(fromIDToken: claims, provider: slack)
        #expect(fromSlack.subject == "T1:u1")
        #expect(fromSlack.groups.isEmpty)
        for identity in [fromGitLab, fromSlack] {
            #expect(identity.email == "a@b.example")
            #expect(identity.emailVerified)
            #expect(identity.name == "Ada Lovelace")
            #expect(identity.source == .idToken)
        }
        for subject: JSONValue? in [nil, ""] {
            var members: [String: JSONValue] = ["https://slack.com/team_id": "T1"]
            members["sub"] = subject
            let refused = JWTClaims(json: members)
            for (plugin, provider) in [(GitLabPlugin() as any ProviderPlugin, gitlab), (SlackPlugin(), slack)] {
                #expect(throws: SignInError.self) {
                    try plugin.identity.identity(fromIDToken: refused, provider: provider)
                }
                do {
                    _ = try plugin.identity.identity(fromIDToken: refused, provider: provider)
                } catch {
                    #expect(error.code == .idTokenInvalid)
                    #expect(error.claim == "sub")
                }
            }
        }
    }
}
