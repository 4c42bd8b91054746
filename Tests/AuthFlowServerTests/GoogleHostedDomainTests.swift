import AuthFlow
import AuthFlowBrowserTestSupport
import AuthFlowHTTP
import AuthFlowSandbox
import Testing

@testable import AuthFlowServer

/// Google `hosted_domain`: only an account whose id_token carries `hd` equal to the configured domain signs in.
/// The email's domain never counts (a consumer account can verify any address), and a refusal leaves no user,
/// identity or session behind.
@Suite("Google hosted_domain: the hd claim decides, never the email")
struct GoogleHostedDomainTests {
    static func settings() -> TestDeployment.Settings {
        var settings = TestDeployment.Settings()
        var options = ProviderOptions()
        options["hosted_domain"] = .string("example.com")
        settings.options["google"] = options
        return settings
    }

    static func person(_ subject: String, email: String, hd: String?) -> SandboxIdentity {
        SandboxIdentity(subject: subject, email: email, givenName: "Dana", hostedDomain: hd)
    }

    @Test func anAccountOfTheDomainSignsIn() async throws {
        try await TestDeployment.with(Self.settings()) { app in
            let browser = TestBrowser()
            let answer = try await app.signIn(
                browser, provider: "google", as: Self.person("hd-1", email: "dana@example.com", hd: "example.com"))
            #expect(answer.status == 302 || answer.status == 303, "\(answer.status) \(answer.text)")
            #expect(try await app.session(browser).status == 200)
        }
    }

    @Test(
        arguments: [
            ("no hd, the email of the domain", "dana@example.com", nil),
            ("another domain", "dana@example.org", "example.org"),
            ("a subdomain", "dana@corp.example.com", "corp.example.com"),
            ("the email of the domain, hd of another", "dana@example.com", "evil.example"),
        ] as [(String, String, String?)])
    func anyOtherAccountIsRefusedAndLeavesNothing(_ label: String, _ email: String, _ hd: String?) async throws {
        try await TestDeployment.with(Self.settings()) { app in
            let browser = TestBrowser()
            let subject = "hd-refused-\(label.count)"
            let answer = try await app.signIn(
                browser, provider: "google", as: Self.person(subject, email: email, hd: hd))
            #expect(answer.status == 403, "\(label): \(answer.status)")
            #expect(errorCode(answer) == "hosted_domain_mismatch", "\(label)")
            #expect(try await app.session(browser).status == 401, "\(label)")
            let key = IdentityKey(provider: "google", subject: subject)
            #expect(try await app.stores.accounts.identity(key) == nil, "\(label)")
        }
    }

    @Test func withoutHostedDomainAnyAccountSignsIn() async throws {
        try await TestDeployment.with { app in
            let browser = TestBrowser()
            let answer = try await app.signIn(
                browser, provider: "google", as: Self.person("hd-2", email: "x@gmail.example", hd: nil))
            #expect(answer.status == 302 || answer.status == 303)
        }
    }
}
