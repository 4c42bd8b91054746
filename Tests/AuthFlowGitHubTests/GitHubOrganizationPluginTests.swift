import AuthFlow
import AuthFlowProviderTestSupport
import Testing

/// The GitHub plugin's membership rules: `read:org` and the two list requests only when a rule needs them, and
/// the keys refused on other provider types.
@Suite("GitHub plugin: allowed_organizations and allowed_teams")
struct GitHubOrganizationPluginTests {
    static func provider(organizations: [String]? = nil, teams: [String]? = nil) throws -> ResolvedProvider {
        var settings = Fixtures.settings("github")
        settings.options["allowed_organizations"] = organizations.map { .strings($0) }
        settings.options["allowed_teams"] = teams.map { .strings($0) }
        return try Fixtures.resolve(settings)
    }

    @Test func asksForReadOrgAndBothListsOnlyWithARule() throws {
        let plain = try Self.provider()
        #expect(!plain.scopes.contains("read:org"))
        #expect(try plain.plugin.identity.userinfoRequests(for: plain, accessToken: "t").count == 2)
        let ruled = try Self.provider(teams: ["octo-org/platform"])
        #expect(ruled.scopes.contains("read:org"))
        let urls = try ruled.plugin.identity.userinfoRequests(for: ruled, accessToken: "t").map(\.url)
        #expect(urls.count == 4)
        #expect(urls[2].hasSuffix("/user/orgs?per_page=100") && urls[3].hasSuffix("/user/teams?per_page=100"))
    }

    @Test func aListThatIsNoListIsAUserinfoError() throws {
        let provider = try Self.provider(organizations: ["octo-org"])
        let user: JSONValue = .object(["id": .integer(1), "login": .string("u")])
        let error = #expect(throws: SignInError.self) {
            try provider.plugin.identity.identity(
                fromUserinfo: [user, .array([]), .object(["message": .string("x")]), .array([])], provider: provider)
        }
        #expect(error?.code == .userinfoError)
    }

    @Test func anotherProviderTypeDoesNotTakeTheKeys() {
        for key in ["allowed_organizations", "allowed_teams"] {
            var google = ProviderSettings(
                name: "google", type: "google", clientID: "c", clientSecret: Secret("s"), location: Fixtures.location(),
                keyLocations: [key: Fixtures.location(6, 5)])
            google.options[key] = .strings(["octo-org"])
            let issues = Fixtures.issues(google)
            #expect(issues.first?.location?.line == 6)
            #expect(issues.first?.message.contains("does not take '\(key)'") == true)
        }
    }
}
