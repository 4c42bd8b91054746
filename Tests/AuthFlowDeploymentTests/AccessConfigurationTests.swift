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
            "    providers: [gogle]", "    email_domains: example.com", "    roles: example.com",
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

    static let tenant = "3c9d2e1f-7a6b-4c5d-8e9f-0a1b2c3d4e5f"

    /// `server.access` over a Google and a Microsoft provider (`ms`), as `authflow check` resolves it.
    func twoProviders(_ lines: String) -> String {
        """
        server:
          public_url: https://app.example
          secret: \(String(repeating: "x", count: 32))
          access:
        \(lines)
        providers:
          google:
            type: google
            client_id: abc
            client_secret: s
          ms:
            type: microsoft
            client_id: abc
            client_secret: s
            tenant: organizations
            allowed_tenants: [\(Self.tenant)]

        """
    }

    @Test func readsGroupAndRoleRulesThatNameTheirProviderAndTenant() throws {
        let configuration = try makeLoader().load(
            yaml: twoProviders(
                """
                    groups: [google:admins, "ms/\(Self.tenant.uppercased()):staff", Admins, "*:team:ops"]
                    roles: [ms:Admin]
                """), fileName: "providers.yaml")
        let access = try #require(configuration.server?.access)
        #expect(access.groups == ["google:admins", "ms/\(Self.tenant.uppercased()):staff", "Admins", "*:team:ops"])
        #expect(access.groupRules.map { $0?.provider } == ["google", "ms", nil, nil])
        #expect(access.groupRules.map { $0?.name } == ["admins", "staff", "Admins", "team:ops"])
        #expect(access.roleRules == [MembershipRule(name: "Admin", provider: "ms")])
        _ = try ProviderRegistry.standard.resolve(configuration)
        let roles = AccessRules(roles: ["ms:Admin"])
        #expect(roles.allows(provider: "ms", verifiedEmail: nil, roles: ["Admin"]))
        #expect(!roles.allows(provider: "ms", verifiedEmail: nil, groups: ["Admin"]))
        #expect(!roles.allows(provider: "google", verifiedEmail: nil, roles: ["Admin"]))
        let tenant = AccessRules(groups: ["ms/\(Self.tenant.uppercased()):staff"])
        #expect(tenant.allows(provider: "ms", tenant: Self.tenant, verifiedEmail: nil, groups: ["staff"]))
        #expect(
            !tenant.allows(
                provider: "ms", tenant: "8a7b6c5d-4e3f-4a2b-9c1d-0e1f2a3b4c5d", verifiedEmail: nil,
                groups: ["staff"]))
        #expect(!tenant.allows(provider: "ms", verifiedEmail: nil, groups: ["staff"]))
        // A rule that does not parse matches nothing, and is no absent rule.
        #expect(!AccessRules(groups: [":staff"]).allows(provider: "ms", verifiedEmail: nil, groups: ["staff"]))
    }

    @Test func refusesMalformedRulesAndUnknownProvidersAtTheirPositions() throws {
        for (line, column, words) in [
            ("    groups: [\":admins\"]", 14, "PROVIDER/TENANT:GROUP"), ("    groups: [\"google:\"]", 14, "*:NAME"),
            ("    roles: [\"*/t:Admin\"]", 13, "PROVIDER:ROLE"), ("    groups: [\"a/b/c:x\"]", 14, "found"),
            ("    roles: [gogle:Admin]", 13, "did you mean \"google\"?"),
            ("    groups: [\"https://corp.example/groups/admins\"]", 14, "written *:NAME"),
        ] {
            let error = try loadError(yaml(line))
            #expect(error.issues.count == 1, "\(line)")
            let issue = try #require(error.issues.first)
            #expect(issue.code == .invalidValue, "\(line)")
            #expect(issue.location?.line == 5 && issue.location?.column == column, "\(line): \(issue)")
            #expect(issue.message.contains(words), "\(line): \(issue.message)")
        }
    }

    @Test func aTenantIsRefusedForAProviderWithoutTenantsAndMustBeOneTheProviderStates() throws {
        for (line, words) in [
            ("    groups: [\"google/\(Self.tenant):admins\"]", "write google:admins"),
            ("    roles: [\"ms/contoso.onmicrosoft.com:Admin\"]", "expected a tenant id (a GUID"),
        ] {
            let configuration = try makeLoader().load(yaml: twoProviders(line), fileName: "providers.yaml")
            let error = #expect(throws: ConfigurationError.self) {
                try ProviderRegistry.standard.resolve(configuration)
            }
            let issue = try #require(error?.issues.first)
            #expect(error?.issues.count == 1, "\(line)")
            #expect(issue.location?.description == "providers.yaml:5:\(line.contains("roles") ? 13 : 14)", "\(line)")
            #expect(issue.message.contains(words), "\(line): \(issue.message)")
        }
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
