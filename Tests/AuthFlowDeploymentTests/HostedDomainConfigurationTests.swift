import AuthFlow
import AuthFlowDeployment
import AuthFlowGitHub
import AuthFlowGoogle
import Testing

/// The issues resolving `yaml` gives (its provider options are read by their plugins at resolution).
func resolutionError(_ yaml: String) throws -> ConfigurationError {
    let configuration = try makeLoader().load(yaml: yaml, fileName: "providers.yaml")
    do {
        _ = try ProviderRegistry.standard.resolve(configuration)
    } catch {
        return error
    }
    throw ConfigurationError(issues: [])
}

/// The one provider `yaml` resolves to.
func resolvedProvider(_ yaml: String) throws -> ResolvedProvider {
    let configuration = try makeLoader().load(yaml: yaml, fileName: "providers.yaml")
    return try #require(try ProviderRegistry.standard.resolve(configuration).first)
}

/// `providers.NAME.hosted_domain` (type `google`): read lower-cased by the Google plugin, refused at its position
/// when it is not an ASCII domain (on another provider type it is refused at resolution:
/// `GoogleHostedDomainPluginTests`).
@Suite("Configuration: google hosted_domain")
struct HostedDomainConfigurationTests {
    static func yaml(_ line: String) -> String {
        """
        providers:
          corp:
            type: google
            client_id: abc
        \(line)
            client_secret: s
            redirect_uri: https://app.example.com/callback

        """
    }

    @Test func readsTheDomainLowerCased() throws {
        let provider = try resolvedProvider(Self.yaml("    hosted_domain: Example.COM"))
        #expect((provider.plugin as? GooglePlugin)?.hostedDomain == "example.com")
    }

    @Test func refusesWhatIsNoDomainAtItsPosition() throws {
        for line in [
            "    hosted_domain: \"@example.com\"", "    hosted_domain: example..com",
            "    hosted_domain: bücher.example",
            "    hosted_domain: [example.com]", "    hosted_domain: \"\"",
        ] {
            let error = try resolutionError(Self.yaml(line))
            #expect(error.issues.count == 1, "\(line)")
            #expect(error.issues.first?.location?.line == 5, "\(line)")
            #expect(error.issues.first?.message.contains("hosted_domain") == true, "\(line)")
        }
    }
}

/// `providers.NAME.allowed_organizations` and `allowed_teams` (type `github`): lower-cased by the GitHub plugin,
/// refused at their position when an entry is not a GitHub login (or `org/team-slug`).
@Suite("Configuration: github allowed_organizations and allowed_teams")
struct GitHubOrganizationConfigurationTests {
    static func yaml(_ line: String) -> String {
        """
        providers:
          gh:
            type: github
            client_id: abc
        \(line)
            client_secret: s
            redirect_uri: https://app.example.com/callback

        """
    }

    @Test func readsTheListsLowerCased() throws {
        let provider = try resolvedProvider(
            Self.yaml("    allowed_organizations: [Octo-Org]\n    allowed_teams: [Octo-Org/Platform_1]"))
        #expect((provider.plugin as? GitHubPlugin)?.allowedOrganizations == ["octo-org"])
        #expect((provider.plugin as? GitHubPlugin)?.allowedTeams == ["octo-org/platform_1"])
    }

    @Test func refusesWhatIsNoLoginOrTeamAtItsPosition() throws {
        for line in [
            "    allowed_organizations: [\"-org\"]", "    allowed_organizations: [octo/org]",
            "    allowed_organizations: [\"\(String(repeating: "o", count: 40))\"]", "    allowed_organizations: octo",
            "    allowed_teams: [octo-org]", "    allowed_teams: [\"octo-org/\"]", "    allowed_teams: [a/b/c]",
            "    allowed_teams: [\"octo org/x\"]",
        ] {
            let error = try resolutionError(Self.yaml(line))
            #expect(error.issues.count == 1, "\(line)")
            #expect(error.issues.first?.location?.line == 5, "\(line)")
        }
    }
}
