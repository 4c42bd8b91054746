import AuthFlow
import AuthFlowBrowserTestSupport
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowSandbox
import Testing

@testable import AuthFlowServer

/// Sign-ins with `type: microsoft` through the sandbox's Microsoft emulator (tenant-specific issuers, the
/// `{tenantid}` template of the `common` authority): an allowed tenant signs in, another tenant and a token
/// whose `iss` names another tenant than its `tid` are refused, and an email Microsoft does not vouch for
/// never links.
@Suite struct MicrosoftSignInTests {
    static let contoso = SandboxMicrosoftTenant.contoso.id
    static let fabrikam = SandboxMicrosoftTenant.fabrikam.id

    static func settings(linking: Bool = false) -> TestDeployment.Settings {
        var settings = TestDeployment.Settings()
        settings.providers = ["google", "microsoft"]
        settings.options["microsoft"] = ProviderOptions([
            "tenant": .string("organizations"), "allowed_tenants": .strings([contoso]),
        ])
        if linking { settings.linkByVerifiedEmail = true }
        return settings
    }

    static func person(tenant: String, issuerTenant: String? = nil, verified: Bool = true) -> SandboxIdentity {
        SandboxIdentity(
            subject: "ada-\(tenant.prefix(4))", email: "ada@contoso.example", givenName: "Ada", familyName: "L",
            emailVerified: verified, tenantID: tenant, objectID: "00000000-0000-4000-8000-0000000000ad",
            roles: ["Reader"], issuerTenantID: issuerTenant)
    }

    @Test func anAllowedTenantSignsInWithTidAndOidAsSubject() async throws {
        try await TestDeployment.with(Self.settings()) { app in
            let browser = TestBrowser()
            let answer = try await app.signIn(browser, provider: "microsoft", as: Self.person(tenant: Self.contoso))
            #expect(answer.status == 303 || answer.status == 302, "\(answer.status) \(answer.text)")
            let session = try #require(try await app.session(browser).json)
            #expect(session["subject"]?.stringValue == "\(Self.contoso):00000000-0000-4000-8000-0000000000ad")
        }
    }

    @Test func anotherTenantIsRefused() async throws {
        try await TestDeployment.with(Self.settings()) { app in
            let browser = TestBrowser()
            let answer = try await app.signIn(browser, provider: "microsoft", as: Self.person(tenant: Self.fabrikam))
            #expect(answer.status == 403)
            #expect(errorCode(answer) == "tenant_not_allowed")
            #expect(try await app.session(browser).status == 401)
        }
    }

    @Test func anIssuerOfAnotherTenantThanTidIsRefused() async throws {
        try await TestDeployment.with(Self.settings()) { app in
            let browser = TestBrowser()
            let mixed = Self.person(tenant: Self.contoso, issuerTenant: Self.fabrikam)
            let answer = try await app.signIn(browser, provider: "microsoft", as: mixed)
            #expect(answer.status == 401)
            #expect(errorCode(answer) == "id_token_invalid")
            #expect(try await app.session(browser).status == 401)
        }
    }

    @Test func anEmailMicrosoftDoesNotVouchForNeverLinks() async throws {
        try await TestDeployment.with(Self.settings(linking: true)) { app in
            let google = TestBrowser()
            let viaGoogle = SandboxIdentity(subject: "g-ada", email: "ada@contoso.example", givenName: "Ada")
            try await app.signIn(google, provider: "google", as: viaGoogle)
            let googleUser = try #require(try await app.session(google).json?["user_id"]?.stringValue)
            // No xms_edov: the same address, set by a tenant admin, makes another user.
            let unverified = TestBrowser()
            try await app.signIn(
                unverified, provider: "microsoft", as: Self.person(tenant: Self.contoso, verified: false))
            #expect(try await app.session(unverified).json?["user_id"]?.stringValue != googleUser)
        }
        try await TestDeployment.with(Self.settings(linking: true)) { app in
            let google = TestBrowser()
            let viaGoogle = SandboxIdentity(subject: "g-ada", email: "ada@contoso.example", givenName: "Ada")
            try await app.signIn(google, provider: "google", as: viaGoogle)
            let googleUser = try #require(try await app.session(google).json?["user_id"]?.stringValue)
            // With xms_edov Microsoft vouches for it: it links.
            let verified = TestBrowser()
            try await app.signIn(verified, provider: "microsoft", as: Self.person(tenant: Self.contoso))
            #expect(try await app.session(verified).json?["user_id"]?.stringValue == googleUser)
        }
    }
}
