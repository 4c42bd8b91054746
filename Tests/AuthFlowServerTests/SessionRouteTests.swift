import AuthFlow
import AuthFlowBrowserTestSupport
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowSandbox
import Testing

@testable import AuthFlowServer

@Suite("Sessions: /auth/session, /auth/check, logout and the same-origin rule")
struct SessionRouteTests {
    @Test func checkAnswers202WithUserHeadersOr401() async throws {
        try await TestDeployment.with { app in
            let browser = TestBrowser()
            let anonymous = try await browser.get(app.appURL + "/auth/check")
            #expect(anonymous.status == 401)
            #expect(anonymous.headers["X-Auth-User"] == nil)
            try await app.signIn(browser, provider: "google", as: People.alice)
            let signedIn = try await browser.get(app.appURL + "/auth/check")
            #expect(signedIn.status == 202)
            let userID = try await app.session(browser).json?["user_id"]?.stringValue
            #expect(signedIn.headers["X-Auth-User"] == userID)
            #expect(signedIn.headers["X-Auth-Email"] == "alice@example.com")
        }
    }

    @Test func checkSendsNoEmailThatIsNotVerified() async throws {
        try await TestDeployment.with { app in
            let browser = TestBrowser()
            try await app.signIn(browser, provider: "facebook", as: People.alice)
            let response = try await browser.get(app.appURL + "/auth/check")
            #expect(response.status == 202)
            #expect(response.headers["X-Auth-Email"] == nil)
        }
    }

    @Test func logoutEndsTheSessionServerSide() async throws {
        try await TestDeployment.with { app in
            let browser = TestBrowser()
            try await app.signIn(browser, provider: "google", as: People.alice)
            let cookie = try #require(browser.cookie(app.sessionCookie, for: app.appURL))
            let logout = try await browser.post(app.appURL + "/auth/logout", from: app.appURL)
            #expect(logout.status == 204)
            #expect(browser.cookie(app.sessionCookie, for: app.appURL) == nil)
            // The old cookie, replayed, no longer works.
            let stale = TestBrowser()
            stale.setCookie(app.sessionCookie, cookie, for: app.appURL)
            #expect(try await app.session(stale).status == 401)
            #expect(try await stale.get(app.appURL + "/auth/check").status == 401)
        }
    }

    @Test func logoutRedirectsToAValidReturnTo() async throws {
        try await TestDeployment.with { app in
            let browser = TestBrowser()
            try await app.signIn(browser, provider: "x", as: People.carol)
            let logout = try await browser.post(app.appURL + "/auth/logout?return_to=/", from: app.appURL)
            #expect(logout.status == 302)
            #expect(logout.location == "/")
            let open = try await browser.post(app.appURL + "/auth/logout?return_to=//evil.example", from: app.appURL)
            #expect(errorCode(open) == "invalid_return_to")
        }
    }

    @Test func sessionExpiresAfterItsLifetime() async throws {
        var settings = TestDeployment.Settings()
        settings.sessionTTL = 3600
        try await TestDeployment.with(settings) { app in
            let browser = TestBrowser()
            try await app.signIn(browser, provider: "google", as: People.alice)
            // The deployment's clock is real time plus an offset, so the margins leave room for a slow
            // machine between the sign-in and each check; the exact boundary is tested on a manual clock.
            app.clock.advance(by: 3540)
            #expect(try await app.session(browser).status == 200)
            app.clock.advance(by: 120)
            #expect(try await app.session(browser).status == 401)
        }
    }

    @Test(
        "state-changing POSTs from another origin are refused",
        arguments: [
            "/auth/logout", "/auth/google/disconnect", "/auth/account/delete",
        ])
    func refusesCrossOriginPosts(path: String) async throws {
        try await TestDeployment.with { app in
            let browser = TestBrowser()
            try await app.signIn(browser, provider: "google", as: People.alice)
            try await app.signIn(browser, provider: "x", as: People.carol, intent: "link")
            let cookie = try #require(browser.cookie(app.sessionCookie, for: app.appURL))
            let attacks: [[(String, String)]] = [
                [("Origin", "http://evil.example"), ("Cookie", "\(app.sessionCookie)=\(cookie)")],
                [("Sec-Fetch-Site", "cross-site"), ("Cookie", "\(app.sessionCookie)=\(cookie)")],
                [("Origin", "null"), ("Cookie", "\(app.sessionCookie)=\(cookie)")],
                [("Sec-Fetch-Site", "same-site"), ("Cookie", "\(app.sessionCookie)=\(cookie)")],
                [("Referer", "http://evil.example/page"), ("Cookie", "\(app.sessionCookie)=\(cookie)")],
            ]
            for headers in attacks {
                // Sent as a non-browser client so the headers are exactly the attack's.
                let response = try await TestBrowser().post(app.appURL + path, from: nil, headers: headers)
                #expect(response.status == 403, "\(headers.first?.0 ?? "")")
                #expect(errorCode(response) == "cross_origin_request")
            }
            // Nothing happened: still signed in, still two identities.
            #expect(try await app.session(browser).status == 200)
            let userID = try #require(try await app.session(browser).json?["user_id"]?.stringValue)
            #expect(try await app.stores.accounts.user(UserID(rawValue: userID))?.identities.count == 2)
            #expect(app.sandbox.revocations(for: .google).isEmpty)
        }
    }

    @Test func sameOriginAndNonBrowserPostsPass() async throws {
        try await TestDeployment.with { app in
            let browser = TestBrowser()
            try await app.signIn(browser, provider: "google", as: People.alice)
            let cookie = try #require(browser.cookie(app.sessionCookie, for: app.appURL))
            let api = try await TestBrowser().post(
                app.appURL + "/auth/logout", from: nil, headers: [("Cookie", "\(app.sessionCookie)=\(cookie)")])
            #expect(api.status == 204)
        }
    }
}
