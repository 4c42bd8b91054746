import AuthFlow
import AuthFlowBrowserTestSupport
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowSandbox
import Testing

@testable import AuthFlowServer

/// The `link` and `register` intents at their edges: the session that started a link ends before the provider
/// answers, an identity is linked again to the user that already holds it, registering while sign-up is off.
@Suite("Link and register intents at their edges")
struct LinkIntentEdgeTests {
    @Test func aLinkWhoseSessionEndedBeforeTheCallbackIsRefusedAndLinksNothing() async throws {
        try await TestDeployment.with { app in
            let browser = TestBrowser()
            let first = try await app.signIn(browser, provider: "google", as: People.alice)
            #expect(first.status == 302)
            let answer = try await app.authorize(browser, provider: "x", as: People.carol, intent: "link")
            // The user signs out in another tab while X asks for consent.
            let logout = try await browser.post(app.appURL + "/auth/logout", from: app.appURL)
            #expect(logout.status == 204)
            let response = try await app.deliver(answer, in: browser)
            #expect(response.status == 401, "\(response.text)")
            #expect(errorCode(response) == "not_signed_in")
            #expect(try await app.stores.accounts.identity(IdentityKey(provider: "x", subject: "carol-3")) == nil)
        }
    }

    @Test func linkingAnIdentityTheUserAlreadyHoldsRefreshesItsProfile() async throws {
        try await TestDeployment.with { app in
            let browser = TestBrowser()
            let first = try await app.signIn(browser, provider: "google", as: People.alice)
            #expect(first.status == 302)
            let userID = try #require(try await app.session(browser).json?["user_id"]?.stringValue)
            let renamed = SandboxIdentity(
                subject: People.alice.subject, email: People.alice.email, givenName: "Alicia",
                familyName: "Example")
            let again = try await app.signIn(browser, provider: "google", as: renamed, intent: "link")
            #expect(again.status == 302, "\(again.text)")
            let identity = try await app.stores.accounts.identity(IdentityKey(provider: "google", subject: "alice-1"))
            #expect(identity?.userID.rawValue == userID)
            #expect(identity?.name == "Alicia Example")
        }
    }

    @Test func registeringWhileSignUpIsOffIsRefusedBeforeTheProvider() async throws {
        var settings = TestDeployment.Settings()
        settings.signup = false
        try await TestDeployment.with(settings) { app in
            let response = try await TestBrowser().get(app.appURL + "/auth/google/register")
            #expect(response.status == 403, "\(response.text)")
            #expect(errorCode(response) == "signup_disabled")
            #expect(response.location == nil)
        }
    }
}
