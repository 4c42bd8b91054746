import AuthFlow
import AuthFlowBrowserTestSupport
import AuthFlowHTTP
import AuthFlowSandbox
import Testing

@testable import AuthFlowServer

/// `GET /auth/forward` for Caddy's `forward_auth` and Traefik's `forwardAuth`: the rules only from the path, the
/// `X-Forwarded-*` headers only from a trusted proxy, and no header, path, query or user agent of the client's
/// choosing that lets a request pass without a session (the oauth2-proxy advisories GHSA-7x63-xv5r-3p2x and
/// GHSA-5hvv-m4w4-gf6v were such bypasses).
@Suite("Forward auth: /auth/forward for Caddy and Traefik, without client-chosen bypasses")
struct ForwardAuthTests {
    static let browserAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"

    /// A request as a proxy sends it: `forwarded` as the X-Forwarded-* headers, `cookie` as the session cookie.
    static func request(
        _ app: TestDeployment, _ path: String, query: [(String, String)] = [], trusted: Bool = true,
        accept: String = browserAccept, cookie: String? = nil, headers: [(String, String)] = []
    ) -> HTTPServerRequest {
        var fields = HTTPHeaders()
        fields["Host"] = String(app.appURL.dropFirst("http://".count))
        fields["Accept"] = accept
        if let cookie { fields["Cookie"] = "\(app.sessionCookie)=\(cookie)" }
        for (name, value) in headers { fields.add(name, value) }
        return HTTPServerRequest(
            method: "GET", path: path, query: query, headers: fields, remoteAddress: "127.0.0.1",
            viaTrustedProxy: trusted)
    }

    /// What Caddy and Traefik send for `GET URI` on the public host.
    static func forwarded(_ app: TestDeployment, uri: String, method: String = "GET") -> [(String, String)] {
        [
            ("X-Forwarded-Method", method), ("X-Forwarded-Proto", "http"),
            ("X-Forwarded-Host", String(app.appURL.dropFirst("http://".count))), ("X-Forwarded-Uri", uri),
        ]
    }

    static func signedIn(_ app: TestDeployment, as identity: SandboxIdentity = People.alice) async throws -> String {
        let browser = TestBrowser()
        try await app.signIn(browser, provider: "google", as: identity)
        return try #require(browser.cookie(app.sessionCookie, for: app.appURL))
    }

    static func location(_ response: HTTPServerResponse) -> String { response.headers["Location"] ?? "" }

    @Test func aBrowserNotSignedInIsSentToTheSignInWithAnAbsoluteLocationBackToTheOriginalURL() async throws {
        try await TestDeployment.with { app in
            let answer = await app.server.handle(
                Self.request(
                    app, "/auth/forward/provider=google",
                    headers: Self.forwarded(app, uri: "/reports/2026?view=all")))
            #expect(answer.status == 302)
            #expect(
                Self.location(answer)
                    == app.appURL + "/auth/google/login?return_to=%2Freports%2F2026%3Fview%3Dall")
            // HEAD is a page view too.
            let head = await app.server.handle(
                Self.request(
                    app, "/auth/forward/provider=google", headers: Self.forwarded(app, uri: "/", method: "HEAD")))
            #expect(head.status == 302)
        }
    }

    @Test func anAPIClientOrANonGETRequestGets401() async throws {
        try await TestDeployment.with { app in
            let api = await app.server.handle(
                Self.request(
                    app, "/auth/forward/provider=google", accept: "application/json",
                    headers: Self.forwarded(app, uri: "/api/items")))
            #expect(api.status == 401)
            #expect(api.headers["Location"] == nil)
            let post = await app.server.handle(
                Self.request(
                    app, "/auth/forward/provider=google", headers: Self.forwarded(app, uri: "/form", method: "POST")))
            #expect(post.status == 401)
            // Several providers and no rule naming one: no sign-in to choose, so 401 (the proxy's error page).
            let unnamed = await app.server.handle(
                Self.request(app, "/auth/forward", headers: Self.forwarded(app, uri: "/")))
            #expect(unnamed.status == 401)
        }
    }

    @Test func authCheckFromATrustedProxyDescribingThePageSendsABrowserToTheSignIn() async throws {
        try await TestDeployment.with { app in
            let browser = await app.server.handle(
                Self.request(
                    app, "/auth/check", query: [("provider", "google")],
                    headers: Self.forwarded(app, uri: "/reports/2026")))
            #expect(browser.status == 302)
            #expect(Self.location(browser) == app.appURL + "/auth/google/login?return_to=%2Freports%2F2026")
            let api = await app.server.handle(
                Self.request(
                    app, "/auth/check", query: [("provider", "google")], accept: "application/json",
                    headers: Self.forwarded(app, uri: "/api/items")))
            #expect(api.status == 401)
            // From a peer that is no trusted proxy, or without X-Forwarded-Uri (nginx's auth_request), 401 as ever.
            let untrusted = await app.server.handle(
                Self.request(
                    app, "/auth/check", query: [("provider", "google")], trusted: false,
                    headers: Self.forwarded(app, uri: "/reports/2026")))
            #expect(untrusted.status == 401)
            let plain = await app.server.handle(Self.request(app, "/auth/check", query: [("provider", "google")]))
            #expect(plain.status == 401)
            // Signed in, the identity headers as ever.
            let cookie = try await Self.signedIn(app)
            let signedIn = await app.server.handle(
                Self.request(app, "/auth/check", cookie: cookie, headers: Self.forwarded(app, uri: "/reports/2026")))
            #expect(signedIn.status == 202)
        }
    }

    @Test func forwardedHeadersFromAPeerThatIsNoTrustedProxyAreIgnored() async throws {
        try await TestDeployment.with { app in
            let answer = await app.server.handle(
                Self.request(
                    app, "/auth/forward/provider=google", trusted: false,
                    headers: Self.forwarded(app, uri: "/admin/secret")))
            #expect(answer.status == 302)
            #expect(Self.location(answer) == app.appURL + "/auth/google/login")
            // A method it says does not turn the answer into 401 either: the request's own method counts.
            let method = await app.server.handle(
                Self.request(
                    app, "/auth/forward/provider=google", trusted: false,
                    headers: Self.forwarded(app, uri: "/", method: "POST")))
            #expect(method.status == 302)
        }
    }

    @Test func aForwardedHeaderSentTwiceOrAnOriginNotAllowedGivesNoReturnTo() async throws {
        try await TestDeployment.with { app in
            let twice = await app.server.handle(
                Self.request(
                    app, "/auth/forward/provider=google",
                    headers: Self.forwarded(app, uri: "/a") + [("X-Forwarded-Uri", "/b")]))
            #expect(twice.status == 302)
            #expect(Self.location(twice) == app.appURL + "/auth/google/login")
            let elsewhere = await app.server.handle(
                Self.request(
                    app, "/auth/forward/provider=google",
                    headers: [
                        ("X-Forwarded-Method", "GET"), ("X-Forwarded-Proto", "https"),
                        ("X-Forwarded-Host", "evil.example"), ("X-Forwarded-Uri", "/"),
                    ]))
            #expect(elsewhere.status == 302)
            #expect(Self.location(elsewhere) == app.appURL + "/auth/google/login")
        }
        var settings = TestDeployment.Settings()
        settings.allowedReturnTo = ["/", "https://app.example.com"]
        try await TestDeployment.with(settings) { app in
            let allowed = await app.server.handle(
                Self.request(
                    app, "/auth/forward/provider=google",
                    headers: [
                        ("X-Forwarded-Method", "GET"), ("X-Forwarded-Proto", "https"),
                        ("X-Forwarded-Host", "app.example.com"), ("X-Forwarded-Uri", "/x"),
                    ]))
            #expect(
                Self.location(allowed)
                    == app.appURL + "/auth/google/login?return_to=https%3A%2F%2Fapp.example.com%2Fx")
        }
    }

    @Test func noPathUserAgentOrHeaderOfTheClientsChoosingPassesWithoutASession() async throws {
        try await TestDeployment.with { app in
            let probes: [[(String, String)]] = [
                Self.forwarded(app, uri: "/healthz") + [("User-Agent", "kube-probe/1.30")],
                Self.forwarded(app, uri: "/ping") + [("User-Agent", "GoogleHC/1.0")],
                Self.forwarded(app, uri: "/auth/google/login") + [("X-Auth-User", "u-admin")],
                Self.forwarded(app, uri: "/robots.txt") + [("X-Forwarded-User", "admin"), ("Authorization", "")],
            ]
            for headers in probes {
                for accept in [Self.browserAccept, "*/*"] {
                    let answer = await app.server.handle(
                        Self.request(app, "/auth/forward/provider=google", accept: accept, headers: headers))
                    #expect(answer.status == 302 || answer.status == 401 || answer.status == 400)
                    #expect(answer.headers["X-Auth-User"] == nil)
                }
            }
            let forged = await app.server.handle(
                Self.request(app, "/auth/forward", accept: "*/*", cookie: "forged-session-id"))
            #expect(forged.status == 401)
        }
    }

    @Test func signedInPassesWithTheIdentityHeadersWhateverTheQuery() async throws {
        try await TestDeployment.with { app in
            let cookie = try await Self.signedIn(app)
            let answer = await app.server.handle(
                Self.request(
                    app, "/auth/forward", query: [("q", "1"), ("page", "2")], cookie: cookie,
                    headers: Self.forwarded(app, uri: "/search?q=1&page=2")))
            #expect(answer.status == 202)
            #expect(answer.headers["X-Auth-Email"] == "alice@example.com")
            #expect(answer.headers["X-Auth-Provider"] == "google")
        }
    }

    @Test func theClientsQueryNeverChangesTheOperatorsRules() async throws {
        try await TestDeployment.with { app in
            let alice = try await Self.signedIn(app)  // alice@example.com
            let rules = "/auth/forward/email_domain=example.org"
            let refused = await app.server.handle(Self.request(app, rules, cookie: alice))
            #expect(refused.status == 403)
            // Caddy appends the client's query: an extra alternative there is not read.
            let appended = await app.server.handle(
                Self.request(
                    app, rules, query: [("email_domain", "example.com"), ("provider", "google")], cookie: alice))
            #expect(appended.status == 403)
            // The query cannot narrow either (an application's own `?provider=` keeps working).
            let narrowing = await app.server.handle(
                Self.request(app, "/auth/forward", query: [("provider", "x")], cookie: alice))
            #expect(narrowing.status == 202)
            // Alternatives are one comma list; a rule named twice in the path is refused, not joined.
            let list = await app.server.handle(
                Self.request(app, "/auth/forward/email_domain=example.org,example.com", cookie: alice))
            #expect(list.status == 202)
            let twice = await app.server.handle(
                Self.request(app, "/auth/forward/email_domain=example.org&email_domain=example.com", cookie: alice))
            #expect(twice.status == 400)
            let unknown = await app.server.handle(
                Self.request(app, "/auth/forward/email_domains=example.com", cookie: alice))
            #expect(unknown.status == 400)
            let both = await app.server.handle(
                Self.request(app, "/auth/forward/email_domain=example.com&provider=x", cookie: alice))
            #expect(both.status == 403)
        }
    }

    @Test func rulesOnlyNarrowServerAccess() async throws {
        var settings = TestDeployment.Settings()
        settings.access = AccessRules(emailDomains: ["example.org"])
        try await TestDeployment.with(settings) { app in
            let alice = try await Self.signedIn(app)  // example.com: outside server.access
            let answer = await app.server.handle(
                Self.request(app, "/auth/forward/email_domain=example.com", cookie: alice))
            #expect(answer.status == 403)
        }
    }
}
