import AuthFlow
import AuthFlowDeployment
import Testing

/// `providers.NAME.hosted_domain` (type `google`): read lower-cased, refused at its position when it is not an
/// ASCII domain (on another provider type it is refused at resolution: `GoogleHostedDomainPluginTests`).
@Suite("Configuration: google hosted_domain")
struct HostedDomainConfigurationTests {
    static func yaml(_ line: String) -> String {
        """
        providers:
          corp:
            type: google
            client_id: abc
        \(line)

        """
    }

    @Test func readsTheDomainLowerCased() throws {
        let configuration = try makeLoader().load(
            yaml: Self.yaml("    hosted_domain: Example.COM"), fileName: "providers.yaml")
        #expect(configuration.providers.first?.options.hostedDomain == "example.com")
    }

    @Test func refusesWhatIsNoDomainAtItsPosition() throws {
        for line in [
            "    hosted_domain: \"@example.com\"", "    hosted_domain: example..com",
            "    hosted_domain: bücher.example",
            "    hosted_domain: [example.com]", "    hosted_domain: \"\"",
        ] {
            let error = try loadError(Self.yaml(line))
            #expect(error.issues.count == 1, "\(line)")
            #expect(error.issues.first?.location?.line == 5, "\(line)")
            #expect(error.issues.first?.message.contains("hosted_domain") == true, "\(line)")
        }
    }
}

/// `providers.NAME.allowed_organizations` and `allowed_teams` (type `github`): lower-cased, refused at their
/// position when an entry is not a GitHub login (or `org/team-slug`).
@Suite("Configuration: github allowed_organizations and allowed_teams")
struct GitHubOrganizationConfigurationTests {
    static func yaml(_ line: String) -> String {
        """
        providers:
          gh:
            type: github
            client_id: abc
        \(line)

        """
    }

    @Test func readsTheListsLowerCased() throws {
        let configuration = try makeLoader().load(
            yaml: Self.yaml("    allowed_organizations: [Octo-Org]\n    allowed_teams: [Octo-Org/Platform_1]"),
            fileName: "providers.yaml")
        #expect(configuration.providers.first?.options.allowedOrganizations == ["octo-org"])
        #expect(configuration.providers.first?.options.allowedTeams == ["octo-org/platform_1"])
    }

    @Test func refusesWhatIsNoLoginOrTeamAtItsPosition() throws {
        for line in [
            "    allowed_organizations: [\"-org\"]", "    allowed_organizations: [octo/org]",
            "    allowed_organizations: [\"\(String(repeating: "o", count: 40))\"]", "    allowed_organizations: octo",
            "    allowed_teams: [octo-org]", "    allowed_teams: [\"octo-org/\"]", "    allowed_teams: [a/b/c]",
            "    allowed_teams: [\"octo org/x\"]",
        ] {
            let error = try loadError(Self.yaml(line))
            #expect(error.issues.count == 1, "\(line)")
            #expect(error.issues.first?.location?.line == 5, "\(line)")
        }
    }
}
