import AuthFlow
import AuthFlowBrowserTestSupport
import AuthFlowHTTP
import AuthFlowSandbox
import Testing

@testable import AuthFlowServer

@Suite("Access rules: server.access and the /auth/check query, 403 for a signed-in user they refuse")
struct AccessRuleTests {
    static func with(
        _ access: AccessRules, _ body: (TestDeployment) async throws -> Void
    ) async throws {
        var settings = TestDeployment.Settings()
        settings.access = access
        // Cached checks outlive any pause of a busy test run between caching and `handleAtOnce`.
        settings.sessionCacheLifetime = 600
        try await TestDeployment.with(settings, body)
    }

    @Test func emailDomainRuleLetsTheDomainInAndOthersGet403() async throws {
        try await Self.with(AccessRules(emailDomains: ["example.com"])) { app in
            #expect(try await TestBrowser().get(app.appURL + "/auth/check").status == 401)
            let alice = TestBrowser()
            try await app.signIn(alice, provider: "google", as: People.alice)
            #expect(try await alice.get(app.appURL + "/auth/check").status == 202)
            let bob = TestBrowser()
            try await app.signIn(bob, provider: "google", as: People.bob)
            for _ in 0..<2 {  // the second answer comes from the session cache: the same 403
                let refused = try await bob.get(app.appURL + "/auth/check")
                #expect(refused.status == 403)
                #expect(errorCode(refused) == "forbidden")
                #expect(refused.headers["X-Auth-User"] == nil)
            }
        }
    }

    @Test func refusalsAreCountedAs403() async throws {
        var settings = TestDeployment.Settings()
        settings.access = AccessRules(providers: ["google"])
        settings.metrics = try ServerMetrics(providers: settings.providers)
        try await TestDeployment.with(settings) { app in
            let carol = TestBrowser()
            try await app.signIn(carol, provider: "x", as: People.carol)
            for _ in 0..<2 { #expect(try await carol.get(app.appURL + "/auth/check").status == 403) }
            let request = HTTPServerRequest(method: "GET", path: "/metrics", remoteAddress: "127.0.0.1")
            let text = String(decoding: app.server.metricsResponse(request).body, as: UTF8.self)
            #expect(text.contains("authflow_sessions_checked_total{result=\"403\"} 2\n"))
            #expect(text.contains("authflow_sessions_checked_total{result=\"202\"} 0\n"))
        }
    }

    @Test func uppercaseDomainMatchesAndASubdomainDoesNot() async throws {
        try await Self.with(AccessRules(emailDomains: ["example.com"])) { app in
            let upper = TestBrowser()
            try await app.signIn(
                upper, provider: "google", as: SandboxIdentity(subject: "u-1", email: "Up@EXAMPLE.Com"))
            #expect(try await upper.get(app.appURL + "/auth/check").status == 202)
            let sub = TestBrowser()
            try await app.signIn(
                sub, provider: "google", as: SandboxIdentity(subject: "s-1", email: "s@sub.example.com"))
            #expect(try await sub.get(app.appURL + "/auth/check").status == 403)
        }
    }

    @Test func twoAtSignsNeverMatch() async throws {
        try await Self.with(AccessRules(emailDomains: ["example.com"])) { app in
            let browser = TestBrowser()
            try await app.signIn(
                browser, provider: "google", as: SandboxIdentity(subject: "t-1", email: "a@evil.example@example.com"))
            // The email was verified and kept as given: only its strict parsing refuses it.
            #expect(try await app.session(browser).json?["email"]?.stringValue == "a@evil.example@example.com")
            #expect(try await browser.get(app.appURL + "/auth/check").status == 403)
        }
    }

    @Test func anUnverifiedEmailMatchesNothing() async throws {
        try await Self.with(AccessRules(emailDomains: ["example.com"])) { app in
            let google = TestBrowser()
            try await app.signIn(
                google, provider: "google",
                as: SandboxIdentity(subject: "v-1", email: "mallory@example.com", emailVerified: false))
            #expect(try await google.get(app.appURL + "/auth/check").status == 403)
            // Facebook's emails are never verified.
            let facebook = TestBrowser()
            try await app.signIn(facebook, provider: "facebook", as: People.alice)
            #expect(try await facebook.get(app.appURL + "/auth/check").status == 403)
        }
    }

    @Test func emailsAndProvidersRulesApplyTogether() async throws {
        try await Self.with(AccessRules(emails: ["alice@example.com"], providers: ["google"])) { app in
            let alice = TestBrowser()
            try await app.signIn(alice, provider: "google", as: People.alice)
            #expect(try await alice.get(app.appURL + "/auth/check").status == 202)
            let bob = TestBrowser()
            try await app.signIn(bob, provider: "google", as: People.bob)
            #expect(try await bob.get(app.appURL + "/auth/check").status == 403)
            let carol = TestBrowser()
            try await app.signIn(carol, provider: "x", as: People.carol)
            #expect(try await carol.get(app.appURL + "/auth/check").status == 403)
        }
    }

    @Test func theQueryNarrowsButNeverWidens() async throws {
        try await Self.with(AccessRules(emailDomains: ["example.com", "example.org"])) { app in
            let alice = TestBrowser()
            try await app.signIn(alice, provider: "google", as: People.alice)
            let url = app.appURL + "/auth/check"
            #expect(try await alice.get(url + "?email_domain=example.com").status == 202)
            #expect(try await alice.get(url + "?email_domain=example.org").status == 403)
            // Repeated or comma-listed: any of them.
            #expect(try await alice.get(url + "?email_domain=example.org&email_domain=EXAMPLE.com").status == 202)
            #expect(try await alice.get(url + "?email_domain=example.org,example.com").status == 202)
            // Kinds apply together.
            #expect(try await alice.get(url + "?email_domain=example.com&provider=google").status == 202)
            #expect(try await alice.get(url + "?email_domain=example.com&provider=x").status == 403)
            let carol = TestBrowser()
            try await app.signIn(carol, provider: "x", as: People.carol)
            // example.net is outside server.access: the query cannot let it in.
            #expect(try await carol.get(url + "?email_domain=example.net").status == 403)
        }
    }

    @Test func anUnknownOrEmptyQueryParameterIsRefusedNotIgnored() async throws {
        try await TestDeployment.with { app in
            let alice = TestBrowser()
            try await app.signIn(alice, provider: "google", as: People.alice)
            let url = app.appURL + "/auth/check"
            for query in [
                "?roles=admins", "?group=", "?role=", "?provider=", "?email_domain=a,,b",
                "?email_domain=b%C3%BCcher.example",
            ] {
                let response = try await alice.get(url + query)
                #expect(response.status == 400, "\(query)")
                #expect(errorCode(response) == "invalid_request", "\(query)")
            }
            #expect(try await TestBrowser().get(url + "?provider=google").status == 401)
        }
    }

    @Test func theImmediatePathAnswersOnlyWhatTheRulesAllow() async throws {
        try await Self.with(AccessRules(providers: ["google"])) { app in
            let alice = TestBrowser()
            try await app.signIn(alice, provider: "google", as: People.alice)
            let carol = TestBrowser()
            try await app.signIn(carol, provider: "x", as: People.carol)
            #expect(try await alice.get(app.appURL + "/auth/check").status == 202)
            #expect(try await carol.get(app.appURL + "/auth/check").status == 403)
            func request(_ browser: TestBrowser, query: [(String, String)] = []) throws -> HTTPServerRequest {
                let cookie = try #require(browser.cookie(app.sessionCookie, for: app.appURL))
                return HTTPServerRequest(
                    method: "GET", path: "/auth/check", query: query,
                    headers: ["Cookie": "\(app.sessionCookie)=\(cookie)"], remoteAddress: "127.0.0.1")
            }
            // Both sessions are cached now: the allowed one is answered at once, the refused one and any
            // query go to `handle`.
            #expect(app.server.handleAtOnce(try request(alice))?.status == 202)
            #expect(app.server.handleAtOnce(try request(carol)) == nil)
            #expect(app.server.handleAtOnce(try request(alice, query: [("provider", "x")])) == nil)
            #expect(try await alice.get(app.appURL + "/auth/check?provider=x").status == 403)
        }
    }

    @Test func identityHeadersAreSentCleanedAndBounded() async throws {
        try await TestDeployment.with { app in
            let browser = TestBrowser()
            try await app.signIn(
                browser, provider: "google",
                as: SandboxIdentity(
                    subject: "e-1", email: "eve@example.com", givenName: "Eve\r\nX-Injected: yes",
                    familyName: String(repeating: "é", count: 300)))
            let response = try await browser.get(app.appURL + "/auth/check")
            #expect(response.status == 202)
            #expect(response.headers["X-Injected"] == nil)
            #expect(response.headers["X-Auth-Provider"] == "google")
            #expect(response.headers["X-Auth-Email"] == "eve@example.com")
            let name = try #require(response.headers["X-Auth-Name"])
            #expect(name.hasPrefix("EveX-Injected: yes"))
            #expect(!name.contains("\r") && !name.contains("\n"))
            #expect(name.utf8.count <= 256)
        }
    }

    @Test func aCleanedHeaderValueLosesControlCharactersAndIsCutAtACharacter() {
        let cleaned = IdentityHeaders.identityHeaderValue(
            "a\r\nb\tc\u{7F}d\u{85}e\u{2028}f\u{202E}g", .cleaned)
        #expect(cleaned == "abcdefg")
        #expect(IdentityHeaders.identityHeaderValue("\r\n", .cleaned) == nil)
        let cut = IdentityHeaders.identityHeaderValue(String(repeating: "é", count: 200), .cleaned)
        #expect(cut == String(repeating: "é", count: 128))
    }

    @Test func aWholeHeaderValueIsTheValueItselfOrNothing() {
        #expect(IdentityHeaders.identityHeaderValue("eve@example.com", .whole) == "eve@example.com")
        for altered in ["eve\u{85}@example.com", " eve@example.com", "eve@example.com ", "", "e\u{2029}"] {
            #expect(IdentityHeaders.identityHeaderValue(altered, .whole) == nil)
        }
        #expect(IdentityHeaders.identityHeaderValue(String(repeating: "a", count: 257), .whole) == nil)
    }
}
