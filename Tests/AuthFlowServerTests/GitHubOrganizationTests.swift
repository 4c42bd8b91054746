import AuthFlow
import AuthFlowBrowserTestSupport
import AuthFlowHTTP
import AuthFlowSandbox
import Testing

@testable import AuthFlowServer

/// GitHub `allowed_organizations` and `allowed_teams` through the sandbox's GitHub (`/user/orgs`, `/user/teams`
/// with `read:org`): members pass with their memberships as groups; anyone else is refused with nothing stored.
@Suite("GitHub organizations and teams: membership decides, refusals leave nothing")
struct GitHubOrganizationTests {
    static func settings(organizations: [String]? = nil, teams: [String]? = nil) -> TestDeployment.Settings {
        var settings = TestDeployment.Settings()
        settings.providers = ["github"]
        var options = ProviderOptions()
        options["allowed_organizations"] = organizations.map { .strings($0) }
        options["allowed_teams"] = teams.map { .strings($0) }
        settings.options["github"] = options
        return settings
    }

    static func member(_ subject: String, of groups: [String]) -> SandboxIdentity {
        SandboxIdentity(subject: subject, email: "m\(subject)@example.com", username: "m\(subject)", groups: groups)
    }

    @Test func aMemberSignsInWithTheMembershipsAsGroups() async throws {
        try await TestDeployment.with(Self.settings(organizations: ["Octo-Org"], teams: ["octo-org/platform"])) {
            app in
            let browser = TestBrowser()
            let answer = try await app.signIn(
                browser, provider: "github", as: Self.member("7001", of: ["octo-org/platform", "other-org"]))
            #expect(answer.status == 302 || answer.status == 303, "\(answer.status) \(answer.text)")
            let check = try await browser.get(app.appURL + "/auth/check")
            #expect(check.status == 202)
            let groups = check.headers["X-Auth-Groups"]?.split(separator: ",").map(String.init) ?? []
            #expect(Set(groups) == ["octo-org", "other-org", "octo-org/platform"])
            let rule = try await browser.get(app.appURL + "/auth/check?group=github:octo-org/platform")
            #expect(rule.status == 202)
        }
    }

    @Test(
        arguments: [
            ("not a member", [String](), "organization_not_allowed"),
            ("another organization", ["evil-org"], "organization_not_allowed"),
            ("an organization named like a team of it", ["octo-org-platform"], "organization_not_allowed"),
            ("the organization but another team", ["octo-org/sales"], "team_not_allowed"),
            ("the organization, no team", ["octo-org"], "team_not_allowed"),
        ] as [(String, [String], String)])
    func othersAreRefusedAndLeaveNothing(_ label: String, _ groups: [String], _ code: String) async throws {
        try await TestDeployment.with(Self.settings(organizations: ["octo-org"], teams: ["octo-org/platform"])) {
            app in
            let browser = TestBrowser()
            let subject = "\(7100 + label.count)"
            let answer = try await app.signIn(browser, provider: "github", as: Self.member(subject, of: groups))
            #expect(answer.status == 403, "\(label): \(answer.status) \(answer.text)")
            #expect(errorCode(answer) == code, "\(label)")
            #expect(try await app.session(browser).status == 401, "\(label)")
            #expect(try await app.stores.accounts.identity(IdentityKey(provider: "github", subject: subject)) == nil)
        }
    }

    @Test func theTeamRuleAloneAdmitsAMemberOfTheTeam() async throws {
        try await TestDeployment.with(Self.settings(teams: ["octo-org/platform"])) { app in
            let member = TestBrowser()
            let ok = try await app.signIn(
                member, provider: "github", as: Self.member("7201", of: ["octo-org/platform"]))
            #expect(ok.status == 302 || ok.status == 303)
            let outsider = TestBrowser()
            let refused = try await app.signIn(outsider, provider: "github", as: Self.member("7202", of: ["octo-org"]))
            #expect(errorCode(refused) == "team_not_allowed")
        }
    }

    @Test func withoutRulesNoMembershipIsRead() async throws {
        try await TestDeployment.with(Self.settings()) { app in
            let browser = TestBrowser()
            let answer = try await app.signIn(browser, provider: "github", as: Self.member("7301", of: ["octo-org"]))
            #expect(answer.status == 302 || answer.status == 303)
            let check = try await browser.get(app.appURL + "/auth/check")
            #expect(check.headers["X-Auth-Groups"] == nil)
        }
    }
}
