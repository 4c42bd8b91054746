import AuthFlow
import AuthFlowDeployment
import Testing

/// `server.access`: who may pass `/auth/check`, and the strict email parsing its rules compare with.
@Suite struct AccessConfigurationTests {
    func yaml(_ lines: String) -> String {
        """
        server:
          public_url: https://app.example
          secret: \(String(repeating: "x", count: 32))
          access:
        \(lines)

        """ + minimalProviders
    }

    @Test func readsTheListsWithDomainsLowercased() throws {
        let configuration = try makeLoader().load(
            yaml: yaml(
                """
                    email_domains: [Example.COM, xn--bcher-kva.example]
                    emails: [Ada@Other.ORG]
                    providers: [google]
                """), fileName: "providers.yaml")
        let access = try #require(configuration.server?.access)
        #expect(access.emailDomains == ["example.com", "xn--bcher-kva.example"])
        #expect(access.emails == ["Ada@other.org"])
        #expect(access.providers == ["google"])
    }

    @Test func absentMeansEveryoneSignedIn() throws {
        let configuration = try makeLoader().load(yaml: yaml(""), fileName: "providers.yaml")
        #expect(configuration.server?.access.isEmpty == true)
    }

    @Test func refusesANonASCIIDomainSayingToWriteItsASCIIForm() throws {
        let error = try loadError(yaml("    email_domains: [bücher.example]"))
        #expect(error.issues.map(\.code) == [.invalidValue])
        let issue = try #require(error.issues.first)
        #expect(issue.message.contains("server.access.email_domains"))
        #expect(issue.message.contains("xn--"))
        #expect(issue.location?.line == 5)
    }

    @Test func refusesMalformedDomainsEmailsAndUnknownProviders() throws {
        for line in [
            "    email_domains: [\"@example.com\"]", "    email_domains: [example..com]", "    email_domains: [.com]",
            "    emails: [\"a@evil.com@company.com\"]", "    emails: [\"@company.com\"]", "    emails: [nobody]",
            "    providers: [gogle]", "    email_domains: example.com", "    roles: [admins]",
            "    groups: [\"a\\r\\nb\"]", "    groups: [\(String(repeating: "g", count: 257))]",
        ] {
            let error = try loadError(yaml(line))
            #expect(error.issues.count == 1, "\(line)")
            #expect(error.issues.first?.location?.line == 5, "\(line)")
        }
    }

    @Test func readsGroupsAsGivenAndMatchesAnyOfThem() throws {
        let configuration = try makeLoader().load(
            yaml: yaml("    groups: [Admins, \"ops team\"]"), fileName: "providers.yaml")
        let access = try #require(configuration.server?.access)
        #expect(access.groups == ["Admins", "ops team"])
        #expect(access.allows(provider: "google", verifiedEmail: nil, groups: ["dev", "ops team"]))
        // Compared exactly: case matters, and a user in no group matches no group rule.
        #expect(!access.allows(provider: "google", verifiedEmail: nil, groups: ["admins"]))
        #expect(!access.allows(provider: "google", verifiedEmail: nil))
        // Kinds apply together: the right group with the wrong provider is refused.
        let both = AccessRules(providers: ["google"], groups: ["Admins"])
        #expect(both.allows(provider: "google", verifiedEmail: nil, groups: ["Admins"]))
        #expect(!both.allows(provider: "x", verifiedEmail: nil, groups: ["Admins"]))
    }

    @Test func emailParsingIsStrict() {
        #expect(AccessRules.parseEmail("a@Company.COM")?.domain == "company.com")
        #expect(AccessRules.parseEmail("a@evil.com@company.com") == nil)
        #expect(AccessRules.parseEmail("@company.com") == nil)
        #expect(AccessRules.parseEmail("a@") == nil)
        #expect(AccessRules.parseEmail("a@bücher.example") == nil)
        #expect(AccessRules.parseEmail("a@company.com\r\n") == nil)
        let rules = AccessRules(emailDomains: ["company.com"])
        #expect(rules.allows(provider: "google", verifiedEmail: "a@COMPANY.com"))
        #expect(!rules.allows(provider: "google", verifiedEmail: "a@evil.com@company.com"))
        #expect(!rules.allows(provider: "google", verifiedEmail: "a@sub.company.com"))
        #expect(!rules.allows(provider: "google", verifiedEmail: "a@company.com.evil.example"))
        #expect(!rules.allows(provider: "google", verifiedEmail: nil))
    }
}
