import AuthFlow
import AuthFlowBrowserTestSupport
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowSandbox
import Testing

@testable import AuthFlowServer

/// A provider in trouble, served by a real loopback HTTP server between the sign-in server and the sandbox:
/// each fault ends in a typed error the user sees, writes no account, and leaves the server healthy (the next
/// sign-in works once the provider recovers).
@Suite("Provider faults: typed errors, no partial writes, a healthy server")
struct ProviderFaultTests {
    static let googleToken = "/google/token"
    static let googleKeys = "/google/oauth2/v3/certs"
    static let xUserinfo = "/x/2/users/me"

    /// Runs `body` against a deployment whose providers are reached through a `FaultyProvider`, with a
    /// one-second client timeout.
    func withFaults(_ body: (TestDeployment, FaultyProvider) async throws -> Void) async throws {
        try await TestDeployment.withFaultyProvider(httpTimeout: 1, body)
    }

    /// Signs in with `provider` while the fault is in place and checks the refusal, then lifts the fault at
    /// `path` and checks that the same identity signs in.
    func expectRefusal(
        _ app: TestDeployment, _ faults: FaultyProvider, provider: String, path: String, code: String,
        status: Int = 401, identity: SandboxIdentity = People.alice
    ) async throws {
        let browser = TestBrowser()
        let response = try await app.signIn(browser, provider: provider, as: identity)
        #expect(response.status == status, "\(path): \(response.status) \(response.text)")
        #expect(errorCode(response) == code, "\(path): \(response.text)")
        #expect(faults.requests(path) > 0, "the fault at \(path) was never reached")
        #expect(browser.cookie(app.sessionCookie, for: app.appURL) == nil)
        let key = IdentityKey(provider: provider, subject: identity.subject)
        #expect(try await app.stores.accounts.identity(key) == nil, "an account was written")
        #expect(try await app.stores.accounts.tokens(for: key) == nil, "tokens were written")
        #expect(try await browser.get(app.appURL + "/healthz").status == 200)
        // The provider recovers: the next sign-in works. Past the JWKS cache's refetch interval, since a cache
        // whose first fetch failed waits that long before it asks again (anonymous callbacks cannot make the
        // server hammer a failing endpoint).
        faults.set(path, nil)
        app.clock.advance(by: 11)
        let again = TestBrowser()
        #expect(try await app.signIn(again, provider: provider, as: identity).status == 302)
        #expect(try await app.session(again).status == 200)
    }

    @Test func aTokenEndpointAnswering500() async throws {
        try await withFaults { app, faults in
            faults.set(
                Self.googleToken,
                .answer(status: 500, headers: [("Content-Type", "application/json")], body: Array("{}".utf8)))
            try await expectRefusal(
                app, faults, provider: "google", path: Self.googleToken, code: "token_endpoint_error")
        }
    }

    @Test func aTokenEndpointAnswering429WithRetryAfter() async throws {
        try await withFaults { app, faults in
            faults.set(
                Self.googleToken,
                .answer(
                    status: 429, headers: [("Retry-After", "30"), ("Content-Type", "application/json")],
                    body: Array(#"{"error":"rate_limit_exceeded"}"#.utf8)))
            try await expectRefusal(
                app, faults, provider: "google", path: Self.googleToken, code: "token_endpoint_error")
        }
    }

    @Test func aTokenEndpointAnsweringAnHTMLErrorPage() async throws {
        try await withFaults { app, faults in
            faults.set(
                Self.googleToken,
                .answer(
                    status: 200, headers: [("Content-Type", "text/html")],
                    body: Array("<html><body><h1>Service Unavailable</h1></body></html>".utf8)))
            try await expectRefusal(
                app, faults, provider: "google", path: Self.googleToken, code: "invalid_token_response")
        }
    }

    @Test func aTokenEndpointAnsweringTwoMegabytes() async throws {
        try await withFaults { app, faults in
            let huge =
                Array(#"{"access_token":""#.utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: 2 << 20)
                + Array(#""}"#.utf8)
            faults.set(
                Self.googleToken, .answer(status: 200, headers: [("Content-Type", "application/json")], body: huge))
            try await expectRefusal(
                app, faults, provider: "google", path: Self.googleToken, code: "provider_unreachable")
        }
    }

    @Test func aTokenEndpointThatNeverAnswers() async throws {
        try await withFaults { app, faults in
            faults.set(Self.googleToken, .hang)
            try await expectRefusal(
                app, faults, provider: "google", path: Self.googleToken, code: "provider_unreachable")
        }
    }

    @Test func aKeySetAnswering500WithNothingCached() async throws {
        try await withFaults { app, faults in
            faults.set(Self.googleKeys, .answer(status: 500, headers: [], body: []))
            try await expectRefusal(app, faults, provider: "google", path: Self.googleKeys, code: "jwks_unavailable")
        }
    }

    @Test func aKeySetAnswering500WhileKeysAreCachedUsesThemWithinTheBound() async throws {
        try await withFaults { app, faults in
            // The first sign-in caches the keys.
            #expect(try await app.signIn(TestBrowser(), provider: "google", as: People.alice).status == 302)
            faults.set(Self.googleKeys, .answer(status: 500, headers: [], body: []))
            // Past the cache's lifetime (5 min by default) but within the staleness bound: the stale keys serve.
            app.clock.advance(by: 3600)
            let stale = TestBrowser()
            #expect(try await app.signIn(stale, provider: "google", as: People.bob).status == 302)
            #expect(faults.requests(Self.googleKeys) > 1, "the cache did not try to refresh")
            // Beyond the bound the stale keys are no longer trusted.
            app.clock.advance(by: JWKSCache.defaultMaximumStaleness + 3600)
            try await expectRefusal(
                app, faults, provider: "google", path: Self.googleKeys, code: "jwks_unavailable",
                identity: People.carol)
        }
    }

    @Test func aUserinfoEndpointAnsweringSomethingOtherThanJSON() async throws {
        try await withFaults { app, faults in
            faults.set(
                Self.xUserinfo,
                .answer(status: 200, headers: [("Content-Type", "text/html")], body: Array("<html>oops</html>".utf8)))
            try await expectRefusal(
                app, faults, provider: "x", path: Self.xUserinfo, code: "userinfo_error", identity: People.carol)
        }
    }
}
