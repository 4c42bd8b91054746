import AuthFlow
import AuthFlowBrowserTestSupport
import AuthFlowHTTP
import AuthFlowSandbox
import Testing

@testable import AuthFlowServer

/// Where a group or role came from: `PROVIDER:NAME` and `PROVIDER/TENANT:NAME` rules trust only that provider
/// (and tenant), Microsoft's app roles are roles and never groups, and an unqualified rule keeps trusting a name
/// from any provider, on the uncached and the cached (`handleAtOnce`) path of `/auth/check` alike.
@Suite("Group rules: a rule names the provider and tenant it trusts; roles stay apart from groups")
struct GroupProvenanceTests {
    static let contoso = SandboxMicrosoftTenant.contoso.id
    static let fabrikam = SandboxMicrosoftTenant.fabrikam.id

    static func settings(_ access: AccessRules) -> TestDeployment.Settings {
        var settings = TestDeployment.Settings()
        settings.providers = ["google", "microsoft"]
        settings.options["microsoft"] = ProviderOptions([
            "tenant": .string("organizations"), "allowed_tenants": .strings([contoso, fabrikam]),
        ])
        settings.access = access
        // Cached checks outlive any pause of a busy test run between caching and `handleAtOnce`.
        settings.sessionCacheLifetime = 600
        return settings
    }

    static func microsoftUser(
        _ name: String, tenant: String = contoso, groups: [String] = [], roles: [String] = []
    ) -> SandboxIdentity {
        let hex = (name.utf8.map { String($0, radix: 16) }.joined() + String(repeating: "0", count: 12))
        return SandboxIdentity(
            subject: "\(name)-\(tenant.prefix(4))", email: "\(name)@contoso.example", givenName: name,
            tenantID: tenant, objectID: "00000000-0000-4000-8000-" + hex.prefix(12), groups: groups, roles: roles)
    }

    static func googleUser(_ name: String, groups: [String]) -> SandboxIdentity {
        var identity = SandboxIdentity(subject: "g-\(name)", email: "\(name)@example.com")
        identity.groups = groups
        return identity
    }

    /// The status of `/auth/check` for `browser` asked twice (the second answer from the session cache), and
    /// whether `handleAtOnce` answers it at once (only an allowed, cached session is).
    static func checks(_ app: TestDeployment, _ browser: TestBrowser) async throws -> [Int] {
        var statuses: [Int] = []
        for _ in 0..<2 { statuses.append(try await browser.get(app.appURL + "/auth/check").status) }
        let cookie = try #require(browser.cookie(app.sessionCookie, for: app.appURL))
        let request = HTTPServerRequest(
            method: "GET", path: "/auth/check", headers: ["Cookie": "\(app.sessionCookie)=\(cookie)"],
            remoteAddress: "127.0.0.1")
        statuses.append(app.server.handleAtOnce(request)?.status ?? 0)
        return statuses
    }

    @Test func aGroupRuleNamingAProviderRefusesTheSameGroupNameFromAnotherProvider() async throws {
        try await TestDeployment.with(Self.settings(AccessRules(groups: ["microsoft:Admin"]))) { app in
            let member = TestBrowser()
            try await app.signIn(member, provider: "microsoft", as: Self.microsoftUser("ada", groups: ["Admin"]))
            #expect(try await Self.checks(app, member) == [202, 202, 202])
            let impostor = TestBrowser()
            try await app.signIn(impostor, provider: "google", as: Self.googleUser("eve", groups: ["Admin"]))
            #expect(try await Self.checks(app, impostor) == [403, 403, 0])
        }
    }

    @Test func aMicrosoftAppRoleDoesNotSatisfyAGroupRule() async throws {
        try await TestDeployment.with(Self.settings(AccessRules(groups: ["Admin"]))) { app in
            let roleOnly = TestBrowser()
            try await app.signIn(roleOnly, provider: "microsoft", as: Self.microsoftUser("rob", roles: ["Admin"]))
            #expect(try await Self.checks(app, roleOnly) == [403, 403, 0])
        }
    }

    @Test func microsoftRolesTravelInXAuthRolesAndNeverInXAuthGroups() async throws {
        try await TestDeployment.with(Self.settings(AccessRules())) { app in
            let browser = TestBrowser()
            let user = Self.microsoftUser("ann", groups: ["g-1"], roles: ["Admin", "Reader"])
            try await app.signIn(browser, provider: "microsoft", as: user)
            for _ in 0..<2 {
                let response = try await browser.get(app.appURL + "/auth/check")
                #expect(response.status == 202)
                #expect(response.headers["X-Auth-Groups"] == "g-1")
                #expect(response.headers["X-Auth-Roles"] == "Admin,Reader")
            }
        }
    }

    @Test func aTenantQualifiedRuleRefusesTheSameGroupFromAnotherTenant() async throws {
        let rule = "microsoft/\(Self.fabrikam.uppercased()):staff"
        try await TestDeployment.with(Self.settings(AccessRules(groups: [rule]))) { app in
            let otherTenant = TestBrowser()
            try await app.signIn(
                otherTenant, provider: "microsoft",
                as: Self.microsoftUser("cat", tenant: Self.contoso, groups: ["staff"]))
            #expect(try await Self.checks(app, otherTenant) == [403, 403, 0])
            // The tenant is compared without regard to ASCII case: Entra's tids are GUIDs, written either way.
            let member = TestBrowser()
            try await app.signIn(
                member, provider: "microsoft", as: Self.microsoftUser("dan", tenant: Self.fabrikam, groups: ["staff"]))
            #expect(try await Self.checks(app, member) == [202, 202, 202])
        }
    }

    @Test func anUnqualifiedRuleTrustsTheNameFromAnyProviderAndStarColonWritesANameWithAColon() async throws {
        try await TestDeployment.with(Self.settings(AccessRules(groups: ["Admin", "*:team:ops"]))) { app in
            let viaGoogle = TestBrowser()
            try await app.signIn(viaGoogle, provider: "google", as: Self.googleUser("gus", groups: ["Admin"]))
            #expect(try await Self.checks(app, viaGoogle) == [202, 202, 202])
            let viaMicrosoft = TestBrowser()
            try await app.signIn(
                viaMicrosoft, provider: "microsoft", as: Self.microsoftUser("meg", groups: ["Admin"]))
            #expect(try await Self.checks(app, viaMicrosoft) == [202, 202, 202])
            let colon = TestBrowser()
            try await app.signIn(colon, provider: "google", as: Self.googleUser("col", groups: ["team:ops"]))
            #expect(try await Self.checks(app, colon) == [202, 202, 202])
        }
    }

    @Test func aRoleRuleAdmitsTheRoleOfItsProviderOnly() async throws {
        try await TestDeployment.with(Self.settings(AccessRules(roles: ["microsoft:Admin"]))) { app in
            let admin = TestBrowser()
            try await app.signIn(admin, provider: "microsoft", as: Self.microsoftUser("ida", roles: ["Admin"]))
            #expect(try await Self.checks(app, admin) == [202, 202, 202])
            // A group of the role's name is no role.
            let group = TestBrowser()
            try await app.signIn(group, provider: "microsoft", as: Self.microsoftUser("jon", groups: ["Admin"]))
            #expect(try await Self.checks(app, group) == [403, 403, 0])
        }
    }

    @Test func theGroupAndRoleQueriesNarrowWithTheSameSyntax() async throws {
        try await TestDeployment.with(Self.settings(AccessRules())) { app in
            let url = app.appURL + "/auth/check"
            let ms = TestBrowser()
            try await app.signIn(
                ms, provider: "microsoft", as: Self.microsoftUser("kim", groups: ["Admin"], roles: ["Owner"]))
            let google = TestBrowser()
            try await app.signIn(google, provider: "google", as: Self.googleUser("lee", groups: ["Admin", "a:b"]))
            #expect(try await ms.get(url + "?group=microsoft:Admin").status == 202)
            #expect(try await google.get(url + "?group=microsoft:Admin").status == 403)
            #expect(try await google.get(url + "?group=Admin").status == 202)
            #expect(try await google.get(url + "?group=*:a:b").status == 202)
            #expect(try await ms.get(url + "?group=microsoft/\(Self.contoso):Admin").status == 202)
            #expect(try await ms.get(url + "?group=microsoft/\(Self.fabrikam):Admin").status == 403)
            #expect(try await ms.get(url + "?role=microsoft:Owner").status == 202)
            #expect(try await ms.get(url + "?role=Owner&group=Admin").status == 202)
            #expect(try await ms.get(url + "?group=Owner").status == 403)
            #expect(try await ms.get(url + "?role=Admin").status == 403)
            #expect(try await google.get(url + "?role=Owner").status == 403)
            for query in ["?group=:Admin", "?group=microsoft:", "?role=*/t:x", "?group=a/b/c:x", "?role="] {
                let response = try await ms.get(url + query)
                #expect(response.status == 400, "\(query)")
                #expect(errorCode(response) == "invalid_request", "\(query)")
            }
        }
    }
}
