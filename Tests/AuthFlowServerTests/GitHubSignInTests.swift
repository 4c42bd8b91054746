import AuthFlow
import AuthFlowBrowserTestSupport
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowSandbox
import Testing

@testable import AuthFlowServer

/// `type: github` through the sandbox's strict GitHub emulator (JSON only with the Accept header, a required
/// User-Agent, `/user` and `/user/emails`).
@Suite struct GitHubSignInTests {
    @Test func signsInWithTheNumericIdAndThePrimaryVerifiedEmail() async throws {
        var settings = TestDeployment.Settings()
        settings.providers = ["github"]
        try await TestDeployment.with(settings) { app in
            let browser = TestBrowser()
            let octocat = SandboxIdentity(
                subject: "583231", email: "octo@example.com", username: "octocat",
                additionalEmails: [.init(address: "old@example.com", verified: true)])
            let answer = try await app.signIn(browser, provider: "github", as: octocat)
            #expect(answer.status == 303 || answer.status == 302, "\(answer.status) \(answer.text)")
            let session = try #require(try await app.session(browser).json)
            #expect(session["subject"]?.stringValue == "583231")
            #expect(session["email"]?.stringValue == "octo@example.com")
            #expect(session["email_verified"]?.boolValue == true)
        }
    }

    @Test func anUnverifiedPrimaryEmailIsNotTheIdentitysEmail() async throws {
        var settings = TestDeployment.Settings()
        settings.providers = ["github"]
        try await TestDeployment.with(settings) { app in
            let browser = TestBrowser()
            let unverified = SandboxIdentity(subject: "42", email: "new@example.com", emailVerified: false)
            let answer = try await app.signIn(browser, provider: "github", as: unverified)
            #expect(answer.status == 303 || answer.status == 302, "\(answer.status) \(answer.text)")
            let session = try #require(try await app.session(browser).json)
            #expect(session["email"] == .null)
        }
    }
}
