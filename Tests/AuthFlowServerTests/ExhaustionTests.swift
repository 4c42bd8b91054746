import AuthFlow
import AuthFlowBrowserTestSupport
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowSandbox
import Foundation
import Testing

@testable import AuthFlowServer

/// Stateless starts, single-use callbacks that an attacker cannot spend, cookie tossing, rate limits.
@Suite struct ExhaustionTests {
    @Test func startsStoreNothing() async throws {
        let clock = ShiftableClock()
        let flows = InMemoryFlowStore(clock: clock)
        var settings = TestDeployment.Settings()
        settings.stores = { clock in
            SignInServer.Stores(
                flows: flows, accounts: InMemoryAccountStore(clock: clock),
                sessions: InMemorySessionStore(clock: clock),
                rateLimits: InMemoryRateLimitStore(clock: clock))
        }
        try await TestDeployment.with(settings) { app in
            for _ in 0..<50 {
                let start = try await TestBrowser().get("\(app.appURL)/auth/google/login?return_to=/")
                #expect(start.status == 302)
            }
            #expect(await flows.count == 0)
            _ = try await app.signIn(TestBrowser(), provider: "google", as: People.alice)
            #expect(await flows.count == 1)
        }
    }

    @Test func aReplayedCallbackIsRefused() async throws {
        try await TestDeployment.with { app in
            let browser = TestBrowser()
            let answer = try await app.authorize(browser, provider: "google", as: People.alice)
            let flowCookie = try #require(
                browser.cookies(for: app.appURL).first { $0.name.hasPrefix("authflow_flow_") })
            #expect(try await app.deliver(answer, in: browser).status == 302)
            // The same callback with the same cookie again.
            browser.setCookie(flowCookie.name, flowCookie.value, for: app.appURL)
            let replay = try await app.deliver(answer, in: browser)
            #expect(replay.status == 400)
            #expect(errorCode(replay) == "invalid_state")
        }
    }

    @Test func aCallbackWithTheVictimsStateButNoOrAWrongCookieDoesNotCancelTheVictimsSignIn() async throws {
        try await TestDeployment.with { app in
            let victim = TestBrowser()
            let answer = try await app.authorize(victim, provider: "google", as: People.alice)
            guard case .get(let url) = answer else {
                Issue.record("expected a GET callback")
                return
            }
            // No cookie at all.
            let cookieless = try await TestBrowser().get(url)
            #expect(cookieless.status == 403)
            #expect(errorCode(cookieless) == "browser_binding_mismatch")
            // The attacker's own flow cookie, renamed to the victim's flow cookie name.
            let attacker = TestBrowser()
            _ = try await attacker.get("\(app.appURL)/auth/google/login?return_to=/")
            let own = try #require(attacker.cookies(for: app.appURL).first { $0.name.hasPrefix("authflow_flow_") })
            let victimCookie = try #require(
                victim.cookies(for: app.appURL).first { $0.name.hasPrefix("authflow_flow_") })
            attacker.setCookie(victimCookie.name, own.value, for: app.appURL)
            let wrong = try await attacker.get(url)
            #expect(wrong.status == 403)
            #expect(errorCode(wrong) == "browser_binding_mismatch")
            // The victim's own callback still succeeds.
            let done = try await app.deliver(answer, in: victim)
            #expect(done.status == 302)
            #expect(try await app.session(victim).status == 200)
        }
    }

    @Test func twoCookiesWithTheFlowCookiesNameAreRefused() async throws {
        try await TestDeployment.with { app in
            let browser = TestBrowser()
            guard case .get(let url) = try await app.authorize(browser, provider: "google", as: People.alice) else {
                Issue.record("expected a GET callback")
                return
            }
            let genuine = try #require(browser.cookies(for: app.appURL).first { $0.name.hasPrefix("authflow_flow_") })
            // A sibling subdomain tossed a second cookie of that name with a longer path.
            let tossed = "\(genuine.name)=\(genuine.value); \(genuine.name)=v1.tossed"
            let response = try await TestBrowser().get(url, headers: [("Cookie", tossed)])
            #expect(response.status == 400)
            #expect(errorCode(response) == "duplicate_cookie")
            #expect(try await app.session(browser).status == 401)
        }
    }

    @Test func twoSessionCookiesAreRefused() async throws {
        try await TestDeployment.with { app in
            let browser = TestBrowser()
            _ = try await app.signIn(browser, provider: "google", as: People.alice)
            let session = try #require(browser.cookie("authflow_session", for: app.appURL))
            let response = try await TestBrowser().get(
                "\(app.appURL)/auth/session",
                headers: [("Cookie", "authflow_session=\(session); authflow_session=tossed")])
            #expect(response.status == 400)
            #expect(errorCode(response) == "duplicate_cookie")
        }
    }

    @Test func twoTabsSigningInWithTwoProvidersBothSucceed() async throws {
        try await TestDeployment.with { app in
            let browser = TestBrowser()
            let google = try await app.authorize(browser, provider: "google", as: People.alice)
            let x = try await app.authorize(browser, provider: "x", as: People.alice)
            #expect(browser.cookies(for: app.appURL).filter { $0.name.hasPrefix("authflow_flow_") }.count == 2)
            #expect(try await app.deliver(x, in: browser).status == 302)
            #expect(try await app.deliver(google, in: browser).status == 302)
            let session = try await app.session(browser)
            #expect(session.status == 200)
            #expect(session.json?["provider"] == .string("google"))
        }
    }

    @Test func excessStartsAndCallbacksGet429WithRetryAfter() async throws {
        try await TestDeployment.with { app in
            let server = SignInServer(
                options: SignInServer.Options(
                    publicURL: app.appURL, secret: Secret("test-secret-0123456789abcdef-0123456789"),
                    rateLimits: RateLimitSettings(
                        starts: .init(perMinute: 60, burst: 3), callbacks: .init(perMinute: 60, burst: 2))),
                providers: Array(app.server.providers.values), stores: .memory(clock: app.clock),
                httpClient: CurlHTTPClient(), clock: app.clock)
            func login(from address: String) async -> HTTPServerResponse {
                await server.handle(
                    HTTPServerRequest(
                        method: "GET", path: "/auth/google/login", query: [("return_to", "/")], remoteAddress: address))
            }
            for _ in 0..<3 { #expect(await login(from: "127.0.0.2").status == 302) }
            let refused = await login(from: "127.0.0.2")
            #expect(refused.status == 429)
            #expect(refused.headers["Retry-After"] == "1")
            let body = try JSONValue.parse(refused.body)
            #expect(body["error"] == .string("rate_limited"))
            // Another address is unaffected; the refill follows the injected clock.
            #expect(await login(from: "127.0.0.3").status == 302)
            app.clock.advance(by: 1)
            #expect(await login(from: "127.0.0.2").status == 302)
            for expected in [403, 403, 429] {
                let callback = await server.handle(
                    HTTPServerRequest(
                        method: "GET", path: "/auth/google/callback", query: [("state", "s"), ("code", "c")],
                        remoteAddress: "127.0.0.2"))
                #expect(callback.status == expected)
            }
        }
    }

    /// One client, one bucket: however its address is written, and wherever in its IPv6 /64 it comes from.
    @Test func rateLimitBucketsAreKeyedByCanonicalAddressAndIPv6Network() async throws {
        try await TestDeployment.with { app in
            var options = SignInServer.Options(
                publicURL: app.appURL, secret: Secret("test-secret-0123456789abcdef-0123456789"),
                rateLimits: RateLimitSettings(
                    starts: .init(perMinute: 1, burst: 2), callbacks: .init(perMinute: 1, burst: 2)))
            func login(_ server: SignInServer, from address: String) async -> Int {
                await server.handle(
                    HTTPServerRequest(
                        method: "GET", path: "/auth/google/login", query: [("return_to", "/")], remoteAddress: address)
                ).status
            }
            let server = SignInServer(
                options: options, providers: Array(app.server.providers.values), stores: .memory(clock: app.clock),
                httpClient: CurlHTTPClient(), clock: app.clock)
            #expect(await login(server, from: "2001:db8:1:2::1") == 302)
            #expect(await login(server, from: "2001:DB8:1:2:0:0:0:1") == 302)
            #expect(await login(server, from: "2001:0db8:0001:0002:ffff::9") == 429)
            #expect(await login(server, from: "2001:db8:1:3::1") == 302)
            #expect(await login(server, from: "192.0.2.1") == 302)
            #expect(await login(server, from: "::ffff:192.0.2.1") == 302)
            #expect(await login(server, from: "::FFFF:c000:201") == 429)
            // With the prefix at 128, each IPv6 address is a client of its own (but still one whatever its text).
            options.ipv6ClientPrefix = 128
            let exact = SignInServer(
                options: options, providers: Array(app.server.providers.values), stores: .memory(clock: app.clock),
                httpClient: CurlHTTPClient(), clock: app.clock)
            #expect(await login(exact, from: "2001:db8:1:2::1") == 302)
            #expect(await login(exact, from: "2001:DB8:1:2::1") == 302)
            #expect(await login(exact, from: "2001:db8:1:2:0::1") == 429)
            #expect(await login(exact, from: "2001:db8:1:2::2") == 302)
        }
    }

    /// Through a trusted proxy on a real listener: forwarded IPv6 addresses written in other ways, or elsewhere in
    /// one /64, drain one bucket; another /64 has its own.
    @Test func forwardedIPv6ClientsShareTheirNetworksBucket() async throws {
        try await TestDeployment.with { app in
            let server = SignInServer(
                options: SignInServer.Options(
                    publicURL: app.appURL, secret: Secret("test-secret-0123456789abcdef-0123456789"),
                    rateLimits: RateLimitSettings(
                        starts: .init(perMinute: 1, burst: 2), callbacks: .init(perMinute: 1, burst: 2))),
                providers: Array(app.server.providers.values), stores: .memory(clock: app.clock),
                httpClient: CurlHTTPClient(), clock: app.clock)
            let proxy = try #require(IPNetwork(parsing: "127.0.0.1"))
            let http = HTTPServer(
                configuration: HTTPServer.Configuration().trusting([proxy]), routePolicy: server.routePolicy,
                handler: server.handle)
            let port = try http.start()
            defer { Task { await http.stop() } }
            func login(forwardedFor: String) async throws -> Int {
                var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/auth/google/login?return_to=/")
                request.headers["X-Forwarded-For"] = forwardedFor
                return try await CurlHTTPClient().send(request).status
            }
            #expect(try await login(forwardedFor: "2001:0DB8:0:7::1") == 302)
            #expect(try await login(forwardedFor: "198.51.100.1, 2001:db8:0:7:0:0:0:1") == 302)
            #expect(try await login(forwardedFor: "2001:db8:0:7:abcd::42") == 429)
            #expect(try await login(forwardedFor: "2001:db8:0:8::1") == 302)
        }
    }

    @Test func rateLimitsCanBeTurnedOff() async throws {
        try await TestDeployment.with { app in
            let server = SignInServer(
                options: SignInServer.Options(
                    publicURL: app.appURL, secret: Secret("test-secret-0123456789abcdef-0123456789"), rateLimits: nil),
                providers: Array(app.server.providers.values), stores: .memory(clock: app.clock),
                httpClient: CurlHTTPClient(), clock: app.clock)
            for _ in 0..<300 {
                let response = await server.handle(
                    HTTPServerRequest(method: "GET", path: "/auth/google/login", remoteAddress: "127.0.0.2"))
                #expect(response.status == 302)
            }
        }
    }
}
