import AuthFlow
import AuthFlowBrowserTestSupport
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowSandbox
import Testing

@testable import AuthFlowServer

@Suite("Accounts: sign-up rules, register, link, disconnect, delete")
struct AccountRouteTests {
    @Test func registerRefusesAnIdentityThatHasAUser() async throws {
        try await TestDeployment.with { app in
            try await app.signIn(TestBrowser(), provider: "google", as: People.alice)
            let browser = TestBrowser()
            let response = try await app.signIn(browser, provider: "google", as: People.alice, intent: "register")
            #expect(response.status == 403)
            #expect(errorCode(response) == "account_exists")
            #expect(try await app.session(browser).status == 401)
        }
    }

    @Test func registerCreatesAUserForANewIdentity() async throws {
        try await TestDeployment.with { app in
            let browser = TestBrowser()
            let response = try await app.signIn(browser, provider: "google", as: People.bob, intent: "register")
            #expect(response.status == 302)
            #expect(try await app.session(browser).json?["subject"]?.stringValue == "bob-2")
        }
    }

    @Test func signupDisabledRefusesNewIdentitiesOnly() async throws {
        var settings = TestDeployment.Settings()
        settings.signup = false
        try await TestDeployment.with(settings) { app in
            let browser = TestBrowser()
            let refused = try await app.signIn(browser, provider: "google", as: People.alice)
            #expect(refused.status == 403)
            #expect(errorCode(refused) == "signup_disabled")
            // An identity that already has a user still signs in.
            _ = try await app.stores.accounts.createUser(
                UserID(rawValue: "u-existing"), identity: IdentityKey(provider: "google", subject: "alice-1"),
                profile: IdentityProfile(email: "alice@example.com", emailVerified: true))
            let allowed = try await app.signIn(browser, provider: "google", as: People.alice)
            #expect(allowed.status == 302)
            #expect(try await app.session(browser).json?["user_id"]?.stringValue == "u-existing")
        }
    }

    @Test func linkNeedsASession() async throws {
        try await TestDeployment.with { app in
            let response = try await TestBrowser().get("\(app.appURL)/auth/x/link?return_to=/")
            #expect(response.status == 401)
            #expect(errorCode(response) == "not_signed_in")
        }
    }

    @Test func linkAttachesASecondProviderAndBothSignInToTheSameUser() async throws {
        try await TestDeployment.with { app in
            let browser = TestBrowser()
            try await app.signIn(browser, provider: "google", as: People.alice)
            let userID = try #require(try await app.session(browser).json?["user_id"]?.stringValue)
            let linked = try await app.signIn(browser, provider: "x", as: People.carol, intent: "link")
            #expect(linked.status == 302)
            let viaX = TestBrowser()
            try await app.signIn(viaX, provider: "x", as: People.carol)
            #expect(try await app.session(viaX).json?["user_id"]?.stringValue == userID)
            #expect(try await app.session(viaX).json?["provider"]?.stringValue == "x")
            let viaGoogle = TestBrowser()
            try await app.signIn(viaGoogle, provider: "google", as: People.alice)
            #expect(try await app.session(viaGoogle).json?["user_id"]?.stringValue == userID)
        }
    }

    @Test func linkRefusesAnIdentityOfAnotherUser() async throws {
        try await TestDeployment.with { app in
            try await app.signIn(TestBrowser(), provider: "x", as: People.carol)
            let browser = TestBrowser()
            try await app.signIn(browser, provider: "google", as: People.alice)
            let response = try await app.signIn(browser, provider: "x", as: People.carol, intent: "link")
            #expect(response.status == 403)
            #expect(errorCode(response) == "account_exists")
        }
    }

    @Test func linkByVerifiedEmailJoinsTheUserWithThatVerifiedEmail() async throws {
        var settings = TestDeployment.Settings()
        settings.linkByVerifiedEmail = true
        try await TestDeployment.with(settings) { app in
            let google = TestBrowser()
            try await app.signIn(google, provider: "google", as: People.alice)
            let userID = try await app.session(google).json?["user_id"]?.stringValue
            let apple = TestBrowser()
            try await app.signIn(apple, provider: "apple", as: People.alice)  // verified alice@example.com
            #expect(try await app.session(apple).json?["user_id"]?.stringValue == userID)
            // Facebook's email is not verified: no linking, a new user.
            let facebook = TestBrowser()
            try await app.signIn(facebook, provider: "facebook", as: People.alice)
            #expect(try await app.session(facebook).json?["user_id"]?.stringValue != userID)
        }
    }

    @Test func withoutLinkByVerifiedEmailTheSameEmailMakesAnotherUser() async throws {
        try await TestDeployment.with { app in
            let google = TestBrowser()
            try await app.signIn(google, provider: "google", as: People.alice)
            let apple = TestBrowser()
            try await app.signIn(apple, provider: "apple", as: People.alice)
            let first = try await app.session(google).json?["user_id"]?.stringValue
            #expect(try await app.session(apple).json?["user_id"]?.stringValue != first)
        }
    }

    @Test func disconnectRevokesAtTheProviderAndUnlinks() async throws {
        try await TestDeployment.with { app in
            let browser = TestBrowser()
            try await app.signIn(browser, provider: "google", as: People.alice)
            let userID = UserID(rawValue: try #require(try await app.session(browser).json?["user_id"]?.stringValue))
            try await app.signIn(browser, provider: "x", as: People.carol, intent: "link")
            let xKey = IdentityKey(provider: "x", subject: "carol-3")
            let xBrowser = TestBrowser()
            try await app.signIn(xBrowser, provider: "x", as: People.carol)
            let stored = try #require(try await app.stores.accounts.tokens(for: xKey))

            let response = try await browser.post(app.appURL + "/auth/x/disconnect", from: app.appURL)
            #expect(response.status == 204)
            let revoked = app.sandbox.revocations(for: .x)
            #expect(revoked.count == 1)
            #expect(revoked.first?.token == stored.refreshToken)
            #expect(revoked.first?.kind == .refreshToken)
            #expect(try await app.stores.accounts.identity(xKey) == nil)
            #expect(try await app.stores.accounts.user(userID)?.identities.map(\.provider) == ["google"])
            // The session signed in with X ended; the one signed in with Google (now the link's) continues.
            #expect(try await app.session(xBrowser).status == 401)
        }
    }

    @Test func disconnectRefusesTheLastIdentityAndUnknownLinks() async throws {
        try await TestDeployment.with { app in
            let browser = TestBrowser()
            try await app.signIn(browser, provider: "google", as: People.alice)
            let last = try await browser.post(app.appURL + "/auth/google/disconnect", from: app.appURL)
            #expect(last.status == 400)
            #expect(errorCode(last) == "last_identity")
            let none = try await browser.post(app.appURL + "/auth/x/disconnect", from: app.appURL)
            #expect(errorCode(none) == "not_linked")
            #expect(app.sandbox.revocations(for: .google).isEmpty)
            let anonymous = try await TestBrowser().post(app.appURL + "/auth/google/disconnect", from: app.appURL)
            #expect(anonymous.status == 401)
        }
    }

    @Test func accountDeleteRevokesEveryTokenAndRemovesTheUser() async throws {
        try await TestDeployment.with { app in
            let browser = TestBrowser()
            try await app.signIn(browser, provider: "apple", as: People.bob)
            let userID = UserID(rawValue: try #require(try await app.session(browser).json?["user_id"]?.stringValue))
            try await app.signIn(browser, provider: "x", as: People.carol, intent: "link")
            let appleTokens = try #require(
                try await app.stores.accounts.tokens(for: IdentityKey(provider: "apple", subject: "bob-2")))
            let other = TestBrowser()
            try await app.signIn(other, provider: "x", as: People.carol)

            let response = try await browser.post(app.appURL + "/auth/account/delete", from: app.appURL)
            #expect(response.status == 204)
            #expect(app.sandbox.revocations(for: .apple).map(\.token) == [appleTokens.refreshToken])
            #expect(app.sandbox.revocations(for: .x).count == 1)
            #expect(try await app.stores.accounts.user(userID) == nil)
            #expect(try await app.session(browser).status == 401)
            #expect(try await app.session(other).status == 401)
            // Signing in again starts from scratch.
            let again = TestBrowser()
            try await app.signIn(again, provider: "x", as: People.carol)
            #expect(try await app.session(again).json?["user_id"]?.stringValue != userID.rawValue)
        }
    }

    @Test func accountDeleteNeedsASession() async throws {
        try await TestDeployment.with { app in
            let response = try await TestBrowser().post(app.appURL + "/auth/account/delete", from: app.appURL)
            #expect(response.status == 401)
            #expect(errorCode(response) == "not_signed_in")
        }
    }
}
