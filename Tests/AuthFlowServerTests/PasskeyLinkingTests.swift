import AuthFlow
import AuthFlowBrowserTestSupport
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlowServer

/// A passkey added to an account made with Google through the sandbox, and Google linked to an account made with a
/// passkey: one user either way, and each way of signing in reaches it.
@Suite struct PasskeyLinkingTests {
    @Test func aPasskeyJoinsAnAccountMadeWithGoogle() async throws {
        try await TestDeployment.with(PasskeyRouteTests.settings) { app in
            let browser = TestBrowser()
            try await app.signIn(browser, provider: "google", as: People.alice)
            let session = try await app.session(browser)
            let userID = try #require(session.json?["user_id"]?.stringValue)
            let cookie = try #require(browser.cookie(app.sessionCookie, for: app.appURL))

            let passkeyBrowser = PasskeyRouteTests.Browser(app)
            passkeyBrowser.cookie = "\(app.sessionCookie)=\(cookie)"
            let authenticator = SoftwareAuthenticator()
            let added = try await passkeyBrowser.register(authenticator, name: "ignored")
            #expect(added.status == 200 && added["user_id"] == userID, "\(added.response.text)")
            let user = try #require(try await app.stores.accounts.user(UserID(rawValue: userID)))
            #expect(Set(user.identities.map(\.provider)) == ["google", "passkey"])

            let later = try await PasskeyRouteTests.Browser(app).authenticate(authenticator)
            #expect(later.status == 200 && later["user_id"] == userID)
        }
    }

    @Test func googleJoinsAnAccountMadeWithAPasskey() async throws {
        try await TestDeployment.with(PasskeyRouteTests.settings) { app in
            let passkeyBrowser = PasskeyRouteTests.Browser(app)
            let signUp = try await passkeyBrowser.register(SoftwareAuthenticator())
            let userID = try #require(signUp["user_id"])
            let cookie = try #require(passkeyBrowser.cookie?.split(separator: "=", maxSplits: 1).last)

            let browser = TestBrowser()
            browser.setCookie(app.sessionCookie, String(cookie), for: app.appURL)
            let linked = try await app.signIn(browser, provider: "google", as: People.bob, intent: "link")
            #expect(linked.status == 302 || linked.status == 303, "\(linked.status) \(linked.text)")
            let user = try #require(try await app.stores.accounts.user(UserID(rawValue: userID)))
            #expect(Set(user.identities.map(\.provider)) == ["google", "passkey"])

            let later = TestBrowser()
            try await app.signIn(later, provider: "google", as: People.bob)
            #expect(try await app.session(later).json?["user_id"]?.stringValue == userID)
        }
    }
}
