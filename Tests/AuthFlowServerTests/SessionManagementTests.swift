import AuthFlow
import AuthFlowBrowserTestSupport
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowSandbox
import Foundation
import Testing

@testable import AuthFlowServer

/// Groups on `/auth/check`, the session list and revocation, `logout everywhere=1`, and
/// `server.session_idle_timeout`.
@Suite("Sessions: groups, the session list, revocation, sign-out everywhere and the idle timeout")
struct SessionManagementTests {
    static func with(
        _ settings: TestDeployment.Settings = settings(), _ body: (TestDeployment) async throws -> Void
    ) async throws {
        try await TestDeployment.with(settings, body)
    }

    /// Test settings, changed by `configure`.
    static func settings(_ configure: (inout TestDeployment.Settings) -> Void = { _ in }) -> TestDeployment.Settings {
        var settings = TestDeployment.Settings()
        // Cached checks outlive any pause of a busy test run between caching and `handleAtOnce`.
        settings.sessionCacheLifetime = 600
        configure(&settings)
        return settings
    }

    static func person(_ subject: String, groups: [String]) -> SandboxIdentity {
        var identity = SandboxIdentity(subject: subject, email: "\(subject)@example.com")
        identity.groups = groups
        return identity
    }

    static func list(_ app: TestDeployment, _ browser: TestBrowser) async throws -> [JSONValue] {
        let response = try await browser.get(app.routesURL + "/sessions")
        #expect(response.status == 200)
        return try #require(try JSONValue.parse(response.body)["sessions"]?.arrayValue)
    }

    static func revoke(
        _ app: TestDeployment, _ browser: TestBrowser, id: String, from origin: String? = nil
    ) async throws -> HTTPClientResponse {
        try await browser.post(
            app.routesURL + "/sessions/revoke",
            rawBody: JSONValue.object(["id": .string(id)]).serializedBytes(), from: origin ?? app.appURL,
            headers: [("Content-Type", "application/json")])
    }

    // MARK: - Groups

    @Test func groupRulesLetAMemberInAndRefuseOthersOnBothPaths() async throws {
        try await Self.with(Self.settings { $0.access = AccessRules(groups: ["admins", "ops"]) }) { app in
            let admin = TestBrowser()
            try await app.signIn(admin, provider: "google", as: Self.person("ada", groups: ["dev", "admins"]))
            let dev = TestBrowser()
            try await app.signIn(dev, provider: "google", as: Self.person("dev", groups: ["dev"]))
            let none = TestBrowser()
            try await app.signIn(none, provider: "google", as: People.alice)
            for _ in 0..<2 {  // the second answers come from the session cache (`handleAtOnce`): the same
                let allowed = try await admin.get(app.appURL + "/auth/check")
                #expect(allowed.status == 202)
                #expect(allowed.headers["X-Auth-Groups"] == "dev,admins")
                #expect(try await dev.get(app.appURL + "/auth/check").status == 403)
                #expect(try await none.get(app.appURL + "/auth/check").status == 403)
            }
        }
    }

    @Test func theGroupQueryNarrowsAnyOfItsGroupsAndAppliesWithTheOtherKinds() async throws {
        try await Self.with { app in
            let ada = TestBrowser()
            try await app.signIn(ada, provider: "google", as: Self.person("ada", groups: ["dev", "admins"]))
            let url = app.appURL + "/auth/check"
            #expect(try await ada.get(url + "?group=admins").status == 202)
            #expect(try await ada.get(url + "?group=ops").status == 403)
            #expect(try await ada.get(url + "?group=ops,admins").status == 202)
            #expect(try await ada.get(url + "?group=ops&group=dev").status == 202)
            #expect(try await ada.get(url + "?group=admins&provider=google").status == 202)
            #expect(try await ada.get(url + "?group=admins&provider=x").status == 403)
            #expect(try await ada.get(url + "?group=Admins").status == 403)
            #expect(try await ada.get(url + "?group=").status == 400)
            // A user without groups matches no group.
            let alice = TestBrowser()
            try await app.signIn(alice, provider: "google", as: People.alice)
            #expect(try await alice.get(url + "?group=admins").status == 403)
            #expect(try await alice.get(url).headers["X-Auth-Groups"] == nil)
        }
    }

    @Test func aGroupWithCRLFOrACommaIsNeverSentButTheOthersAre() async throws {
        try await Self.with { app in
            let groups = ["admins", "evil\r\nX-Injected: 1", "a,b", "dev\u{7F}", "ops"]
            let browser = TestBrowser()
            try await app.signIn(browser, provider: "google", as: Self.person("eve", groups: groups))
            for _ in 0..<2 {
                let response = try await browser.get(app.appURL + "/auth/check")
                #expect(response.status == 202)
                #expect(response.headers["X-Auth-Groups"] == "admins,ops")
                #expect(response.headers["X-Injected"] == nil)
            }
            // The stored value still matches exactly: the rule is the provider's name, the header only is clean.
            #expect(try await browser.get(app.appURL + "/auth/check?group=a,b").status == 403)
            #expect(IdentityHeaders.groupsHeader(groups) == "admins,ops")
        }
    }

    @Test func groupsAreBoundedAtSignIn() async throws {
        try await Self.with { app in
            let many = (0..<70).map { "g\($0)" } + [String(repeating: "x", count: 257)]
            let browser = TestBrowser()
            try await app.signIn(browser, provider: "google", as: Self.person("many", groups: many))
            let header = try #require(try await browser.get(app.appURL + "/auth/check").headers["X-Auth-Groups"])
            #expect(header.split(separator: ",").count == SessionRecord.maximumGroups)
            #expect(header.hasPrefix("g0,g1,") && header.hasSuffix(",g63"))
        }
        let bounded = SessionRecord.boundedGroups(["a", "", "a", String(repeating: "y", count: 257), "b"])
        #expect(bounded.groups == ["a", "b"])
        #expect(bounded.dropped == 3)
    }

    // MARK: - The session list and revocation

    @Test func listsTheUsersLiveSessionsWithOpaqueIdsAndTheCurrentOne() async throws {
        try await Self.with { app in
            let laptop = TestBrowser()
            try await app.signIn(laptop, provider: "google", as: People.alice)
            let phone = TestBrowser()
            try await app.signIn(phone, provider: "google", as: People.alice)
            let bob = TestBrowser()
            try await app.signIn(bob, provider: "google", as: People.bob)
            let listed = try await Self.list(app, laptop)
            #expect(listed.count == 2)
            #expect(listed.filter { $0["current"]?.boolValue == true }.count == 1)
            let cookies = [laptop, phone].compactMap { $0.cookie(app.sessionCookie, for: app.appURL) }
            #expect(cookies.count == 2)
            for item in listed {
                let id = try #require(item["id"]?.stringValue)
                #expect(!cookies.contains(id))
                #expect(!cookies.map { TraceLog.digest($0) }.contains(id))
                #expect(item["provider"]?.stringValue == "google")
                #expect(item["kind"]?.stringValue == "cookie")
                #expect(item["created_at"]?.stringValue != nil && item["last_used_at"]?.stringValue != nil)
                #expect(item["expires_at"]?.stringValue != nil)
                #expect(item["agent"] != nil)
            }
            // The phone sees the same two, itself current.
            let fromPhone = try await Self.list(app, phone)
            #expect(
                Set(fromPhone.compactMap { $0["id"]?.stringValue }) == Set(listed.compactMap { $0["id"]?.stringValue }))
            #expect(
                fromPhone.first { $0["current"]?.boolValue == true }?["id"]
                    != listed.first { $0["current"]?.boolValue == true }?["id"])
            #expect(try await TestBrowser().get(app.routesURL + "/sessions").status == 401)
        }
    }

    @Test func revokesOneOfTheUsersSessions() async throws {
        try await Self.with { app in
            let laptop = TestBrowser()
            try await app.signIn(laptop, provider: "google", as: People.alice)
            let phone = TestBrowser()
            try await app.signIn(phone, provider: "google", as: People.alice)
            #expect(try await phone.get(app.appURL + "/auth/check").status == 202)  // cached now
            let other = try #require(
                try await Self.list(app, laptop).first { $0["current"]?.boolValue == false }?["id"]?.stringValue)
            let revoked = try await Self.revoke(app, laptop, id: other)
            #expect(revoked.status == 204)
            #expect(revoked.headers["Set-Cookie"] == nil)
            // The phone's session ended, on the cached path too; the laptop's did not.
            #expect(try await phone.get(app.appURL + "/auth/check").status == 401)
            #expect(try await app.session(phone).status == 401)
            #expect(try await laptop.get(app.appURL + "/auth/check").status == 202)
            #expect(try await Self.list(app, laptop).count == 1)
            // Once gone, the id names nothing.
            let again = try await Self.revoke(app, laptop, id: other)
            #expect(again.status == 404)
            #expect(errorCode(again) == "session_not_found")
        }
    }

    @Test func refusesAnotherUsersSessionIdAndUnknownIds() async throws {
        try await Self.with { app in
            let alice = TestBrowser()
            try await app.signIn(alice, provider: "google", as: People.alice)
            let bob = TestBrowser()
            try await app.signIn(bob, provider: "google", as: People.bob)
            let bobsID = try #require(try await Self.list(app, bob).first?["id"]?.stringValue)
            for id in [bobsID, "AAAAAAAAAAAAAAAAAAAAAA", String(bobsID.dropLast())] {
                let refused = try await Self.revoke(app, alice, id: id)
                #expect(refused.status == 404, "\(id)")
                #expect(errorCode(refused) == "session_not_found", "\(id)")
            }
            #expect(try await bob.get(app.appURL + "/auth/check").status == 202)
            // Without a session: 401, whatever the id.
            #expect(try await Self.revoke(app, TestBrowser(), id: bobsID).status == 401)
        }
    }

    @Test func revocationTakesAJSONBodyFromTheSameOriginOnly() async throws {
        try await Self.with { app in
            let alice = TestBrowser()
            try await app.signIn(alice, provider: "google", as: People.alice)
            let id = try #require(try await Self.list(app, alice).first?["id"]?.stringValue)
            let crossSite = try await Self.revoke(app, alice, id: id, from: "https://evil.example")
            #expect(crossSite.status == 403)
            #expect(errorCode(crossSite) == "cross_origin_request")
            let form = try await alice.post(
                app.routesURL + "/sessions/revoke", form: [("id", id)], from: app.appURL)
            // A JSON route reads application/json only (the route table): a form is 415.
            #expect(form.status == 415)
            #expect(errorCode(form) == "unsupported_media_type")
            for body in ["[]", "{}", "{\"id\": 1}", "{\"id\": \"\"}", "not json"] {
                let refused = try await alice.post(
                    app.routesURL + "/sessions/revoke", rawBody: Array(body.utf8), from: app.appURL,
                    headers: [("Content-Type", "application/json")])
                #expect(refused.status == 400, "\(body)")
            }
            #expect(try await alice.get(app.appURL + "/auth/check").status == 202)
            #expect(try await alice.get(app.routesURL + "/sessions/revoke").status == 405)
            // Revoking the current session ends it and clears the cookie.
            let own = try await Self.revoke(app, alice, id: id)
            #expect(own.status == 204)
            #expect(own.headers["Set-Cookie"]?.contains("Max-Age=0") == true)
            #expect(try await alice.get(app.appURL + "/auth/check").status == 401)
        }
    }

    @Test func theRoutesFollowThePathPrefixAndTheFormBodyLimit() async throws {
        try await Self.with(Self.settings { $0.pathPrefix = "/login" }) { app in
            let alice = TestBrowser()
            try await app.signIn(alice, provider: "google", as: People.alice)
            let listed = try await Self.list(app, alice)
            #expect(listed.count == 1)
            #expect(try await alice.get(app.appURL + "/auth/sessions").status == 404)
            let policy = app.server.routePolicy(method: "POST", path: "/login/sessions/revoke")
            #expect(policy.maxBodyBytes == SignInServer.formBodyLimit)
            #expect(policy.startsOnPollingThread == false)
            #expect(app.server.routePolicy(method: "GET", path: "/login/sessions").maxBodyBytes == 0)
            let id = try #require(listed.first?["id"]?.stringValue)
            #expect(try await Self.revoke(app, alice, id: id).status == 204)
            #expect(try await alice.get(app.routesURL + "/check").status == 401)
        }
    }

    @Test func logoutEverywhereEndsEverySessionOfTheUserOnly() async throws {
        try await Self.with { app in
            let laptop = TestBrowser()
            try await app.signIn(laptop, provider: "google", as: People.alice)
            let phone = TestBrowser()
            try await app.signIn(phone, provider: "google", as: People.alice)
            let bob = TestBrowser()
            try await app.signIn(bob, provider: "google", as: People.bob)
            for browser in [laptop, phone, bob] {
                #expect(try await browser.get(app.appURL + "/auth/check").status == 202)
            }
            let out = try await laptop.post(app.routesURL + "/logout", form: [("everywhere", "1")], from: app.appURL)
            #expect(out.status == 204)
            #expect(try await laptop.get(app.appURL + "/auth/check").status == 401)
            #expect(try await phone.get(app.appURL + "/auth/check").status == 401)
            #expect(try await bob.get(app.appURL + "/auth/check").status == 202)
            // A plain logout ends only its own session; a query works as the form does; another value is refused.
            let one = TestBrowser()
            try await app.signIn(one, provider: "google", as: People.bob)
            #expect(try await one.post(app.routesURL + "/logout", from: app.appURL).status == 204)
            #expect(try await bob.get(app.appURL + "/auth/check").status == 202)
            #expect(try await bob.post(app.routesURL + "/logout?everywhere=yes", from: app.appURL).status == 400)
            #expect(try await bob.get(app.appURL + "/auth/check").status == 202)
            let two = TestBrowser()
            try await app.signIn(two, provider: "google", as: People.bob)
            #expect(try await bob.post(app.routesURL + "/logout?everywhere=1", from: app.appURL).status == 204)
            #expect(try await two.get(app.appURL + "/auth/check").status == 401)
        }
    }

    @Test func summarizesTheUserAgentFromAFixedVocabulary() {
        let chrome =
            "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36"
        #expect(UserAgentSummary.summary(chrome) == "Chrome on Linux")
        let safari =
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Version/17.0 Mobile Safari/604.1"
        #expect(UserAgentSummary.summary(safari) == "Safari on iOS")
        #expect(UserAgentSummary.summary("Mozilla/5.0 (Windows NT 10.0) Chrome/120.0 Edg/120.0") == "Edge on Windows")
        #expect(UserAgentSummary.summary("curl/8.5.0") == "curl")
        #expect(UserAgentSummary.summary("evil\r\n<script>") == nil)
        #expect(UserAgentSummary.summary(nil) == nil)
    }

    // MARK: - The idle timeout

    @Test func anUnusedSessionEndsAndUseRenewsItWithFewWrites() async throws {
        try await Self.with(
            Self.settings {
                $0.sessionIdleTimeout = 600
                $0.sessionCacheLifetime = 86_400
            }
        ) { app in
            let browser = TestBrowser()
            try await app.signIn(browser, provider: "google", as: People.alice)
            let id = try #require(browser.cookie(app.sessionCookie, for: app.appURL))
            let created = try #require(try await app.stores.sessions.session(id: id)).lastUsedAt
            #expect(try await browser.get(app.appURL + "/auth/check").status == 202)
            // Within a tenth of the timeout a use writes nothing.
            app.clock.advance(by: 30)
            #expect(try await browser.get(app.appURL + "/auth/check").status == 202)
            #expect(try await app.stores.sessions.session(id: id)?.lastUsedAt == created)
            // Past it, the next use (here a cached check) writes the last use once.
            app.clock.advance(by: 40)
            #expect(try await browser.get(app.appURL + "/auth/check").status == 202)
            let renewed = try #require(try await app.stores.sessions.session(id: id)).lastUsedAt
            #expect(renewed.timeIntervalSince(created) >= 70)
            #expect(try await browser.get(app.appURL + "/auth/check").status == 202)
            #expect(try await app.stores.sessions.session(id: id)?.lastUsedAt == renewed)
            // Used within the timeout, again and again, it lives on past the first timeout.
            for _ in 0..<3 {
                app.clock.advance(by: 590)
                #expect(try await browser.get(app.appURL + "/auth/check").status == 202)
            }
            // Unused for the whole timeout it ends: the cache (a day's lifetime here) does not answer for it.
            app.clock.advance(by: 600)
            #expect(try await browser.get(app.appURL + "/auth/check").status == 401)
            #expect(try await app.session(browser).status == 401)
            // And use no longer renews it.
            #expect(try await browser.get(app.appURL + "/auth/check").status == 401)
        }
    }

    @Test func renewalNeverOutlivesTheSessionLifetime() async throws {
        try await Self.with(
            Self.settings {
                $0.sessionIdleTimeout = 600
                $0.sessionTTL = 1000
            }
        ) { app in
            let browser = TestBrowser()
            try await app.signIn(browser, provider: "google", as: People.alice)
            for _ in 0..<3 {
                app.clock.advance(by: 300)
                #expect(try await browser.get(app.appURL + "/auth/check").status == 202)
            }
            app.clock.advance(by: 101)  // 1001 s after sign-in, last used 101 s ago
            #expect(try await browser.get(app.appURL + "/auth/check").status == 401)
        }
    }

    @Test func anIdleSessionIsNotListedAndEverywhereFromItEndsNothing() async throws {
        try await Self.with(Self.settings { $0.sessionIdleTimeout = 600 }) { app in
            let old = TestBrowser()
            try await app.signIn(old, provider: "google", as: People.alice)
            app.clock.advance(by: 500)
            let fresh = TestBrowser()
            try await app.signIn(fresh, provider: "google", as: People.alice)
            #expect(try await Self.list(app, fresh).count == 2)
            app.clock.advance(by: 200)
            let listed = try await Self.list(app, fresh)
            #expect(listed.count == 1)
            #expect(listed.first?["current"]?.boolValue == true)
            #expect(try await old.post(app.routesURL + "/logout?everywhere=1", from: app.appURL).status == 204)
            #expect(try await fresh.get(app.appURL + "/auth/check").status == 202)
        }
    }
}
