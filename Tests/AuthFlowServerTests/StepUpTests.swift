import AuthFlow
import AuthFlowBrowserTestSupport
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowSandbox
import Foundation
import Testing

@testable import AuthFlowServer

/// Step-up: `max_age` and `acr_values` on the sign-in start, sent to the provider, sealed in the flow, checked
/// against the id_token's `auth_time` and `acr`, kept in the session, and required by `/auth/check?acr=…&max_age=…`.
@Suite("Step-up: max_age and acr_values through the sandbox's OpenID issuer")
struct StepUpTests {
    static let mfa = "urn:sandbox:acr:mfa"
    static let password = "urn:sandbox:acr:password"

    static func settings() -> TestDeployment.Settings { GenericOIDCSettings.settings([:]) }

    /// Starts a sign-in with `query` and follows it through the sandbox as `identity`; the app's last answer.
    func signIn(
        _ app: TestDeployment, _ browser: TestBrowser, as identity: SandboxIdentity, _ query: [(String, String)]
    ) async throws -> (start: HTTPClientResponse, callback: HTTPClientResponse?) {
        let url = app.routesURL + "/google/login" + (query.isEmpty ? "" : "?" + FormURLEncoding.encode(query))
        return try await follow(app, browser, url, as: identity)
    }

    func follow(_ app: TestDeployment, _ browser: TestBrowser, _ url: String, as identity: SandboxIdentity)
        async throws -> (start: HTTPClientResponse, callback: HTTPClientResponse?)
    {
        let start = try await browser.get(url)
        guard start.status == 302, let location = start.location else { return (start, nil) }
        app.sandbox.setAutoConsent(identity, for: .google)
        let authorize = try await browser.get(location)
        try #require(authorize.status == 302, "authorize answered \(authorize.status): \(authorize.text)")
        return (start, try await browser.get(try #require(authorize.location)))
    }

    func parameters(_ url: String?) -> [String: String] {
        var found: [String: String] = [:]
        for item in URLComponents(string: url ?? "")?.queryItems ?? [] { found[item.name] = item.value ?? "" }
        return found
    }

    @Test func maxAgeAndACRValuesReachTheProviderAndTheSession() async throws {
        try await TestDeployment.with(Self.settings()) { app in
            let browser = TestBrowser()
            let before = app.clock.now().timeIntervalSince1970.rounded(.down)
            let (start, callback) = try await signIn(
                app, browser, as: People.alice, [("max_age", "300"), ("acr_values", "\(Self.mfa) \(Self.password)")])
            let sent = parameters(start.location)
            #expect(sent["max_age"] == "300")
            #expect(sent["acr_values"] == "\(Self.mfa) \(Self.password)")
            #expect(callback?.status == 302, "\(callback?.text ?? "")")
            let user = try #require(await userID(app, browser))
            let sessions = try await app.stores.sessions.sessions(userID: user)
            let record = try #require(sessions.first?.record)
            #expect(record.acr == Self.mfa)
            let authTime = try #require(record.authTime)
            // The issuer authenticated the user afresh during this sign-in (auth_time is whole seconds).
            #expect(authTime.timeIntervalSince1970 >= before && authTime <= app.clock.now())
            // The session satisfies a check that asks for as much.
            let check = try await browser.get(app.appURL + "/auth/check?acr=\(Self.mfa)&max_age=300")
            #expect(check.status == 202, "\(check.text)")
        }
    }

    func userID(_ app: TestDeployment, _ browser: TestBrowser) async throws -> UserID? {
        (try await app.session(browser).json?["user_id"]?.stringValue).map(UserID.init(rawValue:))
    }

    @Test func anACRTheProviderCouldNotReachIsRefused() async throws {
        try await TestDeployment.with(Self.settings()) { app in
            var weak = People.alice
            weak.pinnedACR = Self.password
            let browser = TestBrowser()
            let (_, callback) = try await signIn(app, browser, as: weak, [("acr_values", Self.mfa)])
            let refused = try #require(callback)
            #expect(refused.status == 401, "\(refused.text)")
            #expect(errorCode(refused) == "acr_not_satisfied")
            #expect(try await app.session(browser).status == 401)
        }
    }

    @Test(arguments: [(Int64(3600), false), (Int64(330), true)])
    func anAuthenticationOlderThanMaxAgeIsRefusedBeyondTheLeeway(_ age: Int64, accepted: Bool) async throws {
        try await TestDeployment.with(Self.settings()) { app in
            var stale = People.alice
            stale.staleAuthenticationSeconds = age
            let browser = TestBrowser()
            let (_, callback) = try await signIn(app, browser, as: stale, [("max_age", "300")])
            let answer = try #require(callback)
            if accepted {
                #expect(answer.status == 302, "\(answer.text)")
            } else {
                #expect(answer.status == 401, "\(answer.text)")
                #expect(errorCode(answer) == "auth_time_too_old")
                #expect(try await app.session(browser).status == 401)
            }
        }
    }

    @Test(arguments: [
        [("max_age", "-1")], [("max_age", "abc")], [("max_age", "")], [("max_age", "99999999999")],
        [("max_age", "1"), ("max_age", "2")], [("acr_values", "")], [("acr_values", "a b c d e f g h i")],
        [("acr_values", String(repeating: "a", count: 256))], [("acr_values", "a\u{7F}")],
    ])
    func malformedStepUpParametersAreRefusedBeforeTheProvider(_ query: [(String, String)]) async throws {
        try await TestDeployment.with(Self.settings()) { app in
            let (start, _) = try await signIn(app, TestBrowser(), as: People.alice, query)
            #expect(start.status == 400, "\(query): \(start.text)")
            #expect(errorCode(start) == "invalid_step_up")
            #expect(app.sandbox.requestCounts(for: .google).authorization == 0)
        }
    }

    @Test func aProviderWithoutOpenIDConnectCannotBeAskedForStepUp() async throws {
        var settings = TestDeployment.Settings()
        settings.providers = ["x"]
        try await TestDeployment.with(settings) { app in
            let start = try await TestBrowser().get(app.routesURL + "/x/login?max_age=60")
            #expect(start.status == 400, "\(start.text)")
            #expect(errorCode(start) == "invalid_step_up")
        }
    }

    @Test func checkAsksForStepUpWithTheLoginURLThatSatisfiesIt() async throws {
        try await TestDeployment.with(Self.settings()) { app in
            let browser = TestBrowser()
            let (_, plain) = try await signIn(app, browser, as: People.alice, [])
            #expect(plain?.status == 302)
            #expect(try await browser.get(app.appURL + "/auth/check").status == 202)
            let refused = try await browser.get(app.appURL + "/auth/check?acr=\(Self.mfa)")
            #expect(refused.status == 401, "\(refused.text)")
            #expect(errorCode(refused) == "insufficient_user_authentication")
            let login = try #require(try JSONValue.parse(refused.body)["login_url"]?.stringValue)
            #expect(refused.location == login)
            #expect(login.hasPrefix(app.routesURL + "/google/login?"))
            #expect(parameters(login)["acr_values"] == Self.mfa)
            let challenge = try #require(refused.headers["WWW-Authenticate"])
            #expect(challenge.contains("error=\"insufficient_user_authentication\""))
            #expect(challenge.contains("acr_values=\"\(Self.mfa)\""))
            // Following it signs in with the class asked, and the check passes.
            let (_, stepped) = try await follow(app, browser, login, as: People.alice)
            #expect(stepped?.status == 302, "\(stepped?.text ?? "")")
            #expect(try await browser.get(app.appURL + "/auth/check?acr=\(Self.mfa)").status == 202)
        }
    }

    @Test func checkMaxAgeCountsFromTheAuthentication() async throws {
        try await TestDeployment.with(Self.settings()) { app in
            let browser = TestBrowser()
            _ = try await signIn(app, browser, as: People.alice, [("max_age", "600")])
            #expect(try await browser.get(app.appURL + "/auth/check?max_age=300").status == 202)
            app.clock.advance(by: 301)
            let refused = try await browser.get(app.appURL + "/auth/check?max_age=300")
            #expect(refused.status == 401)
            #expect(errorCode(refused) == "insufficient_user_authentication")
            let login = try #require(refused.location)
            #expect(parameters(login)["max_age"] == "300")
            #expect(refused.headers["WWW-Authenticate"]?.contains("max_age=300") == true)
            // A session that never said when it authenticated does not satisfy a max_age.
            let other = TestBrowser()
            _ = try await signIn(app, other, as: People.bob, [])
            #expect(try await other.get(app.appURL + "/auth/check?max_age=86400").status == 401)
        }
    }

    @Test(arguments: ["max_age=x", "max_age=1&max_age=2", "acr=", "acr=a%20b", "acr=a,,b", "colour=red"])
    func malformedCheckStepUpIsA400(_ query: String) async throws {
        try await TestDeployment.with(Self.settings()) { app in
            let browser = TestBrowser()
            _ = try await signIn(app, browser, as: People.alice, [])
            let response = try await browser.get(app.appURL + "/auth/check?" + query)
            #expect(response.status == 400, "\(query): \(response.text)")
            #expect(errorCode(response) == "invalid_request")
        }
    }

    @Test func aTrustedForwardAuthBrowserIsRedirectedToTheStepUpSignIn() async throws {
        try await TestDeployment.with(Self.settings()) { app in
            let browser = TestBrowser()
            _ = try await signIn(app, browser, as: People.alice, [])
            let cookie = try #require(browser.cookie(app.sessionCookie, for: app.appURL))
            let answer = await app.server.handle(
                ForwardAuthTests.request(
                    app, "/auth/forward/acr=\(Self.mfa)", cookie: cookie,
                    headers: ForwardAuthTests.forwarded(app, uri: "/reports")))
            #expect(answer.status == 302)
            let location = answer.headers["Location"] ?? ""
            #expect(location.hasPrefix(app.routesURL + "/google/login?"))
            #expect(parameters(location)["acr_values"] == Self.mfa)
            #expect(parameters(location)["return_to"] == "/reports")
            // An API client (no text/html) gets the 401 with the same URL.
            let api = await app.server.handle(
                ForwardAuthTests.request(
                    app, "/auth/forward/acr=\(Self.mfa)", accept: "application/json", cookie: cookie))
            #expect(api.status == 401)
            #expect(api.headers["Location"]?.hasPrefix(app.routesURL + "/google/login?") == true)
        }
    }

    @Test func theFlowRecordSealsTheStepUpAndRefusesATamperedOne() throws {
        let stepUp = try #require(try StepUp.parse(maxAge: "300", acrValues: "\(Self.mfa) \(Self.password)"))
        let record = FlowRecord(
            provider: "google", state: "s", nonce: "n", pkceVerifier: "v", returnTo: "/", browserBindingDigest: "b",
            intent: .login, createdAt: Date(timeIntervalSince1970: 1_700_000_000), stepUp: stepUp)
        let bytes = record.serialized()
        #expect(bytes == Array(record.jsonValue().serialized().utf8))
        #expect(try FlowRecord(serialized: bytes) == record)
        #expect(
            try FlowRecord(
                serialized: FlowRecord(
                    provider: "google", state: "s", nonce: nil, pkceVerifier: nil, returnTo: nil,
                    browserBindingDigest: "b",
                    intent: .login, createdAt: Date(timeIntervalSince1970: 1_700_000_000)
                ).serialized()
            ).stepUp == nil)
        var object = try #require(record.jsonValue().objectValue)
        object["max_age"] = .integer(-5)
        #expect(throws: FlowStoreError.self) {
            try FlowRecord(serialized: Array(JSONValue.object(object).serialized().utf8))
        }
    }

    @Test func theIDTokenCheckNeedsAuthTimeWhenMaxAgeWasAsked() throws {
        let stepUp = try #require(try StepUp.parse(maxAge: "60", acrValues: nil))
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let missing = try JWTClaims(payload: Array(#"{"sub":"a"}"#.utf8))
        #expect(throws: SignInError.self) { try stepUp.check(missing, now: now, leeway: 60) }
        let fresh = try JWTClaims(payload: Array(#"{"sub":"a","auth_time":1699999900}"#.utf8))
        try stepUp.check(fresh, now: now, leeway: 60)
        let stale = try JWTClaims(payload: Array(#"{"sub":"a","auth_time":1699999879}"#.utf8))
        do {
            try stepUp.check(stale, now: now, leeway: 60)
            Issue.record("expected auth_time_too_old")
        } catch {
            #expect(error.code == .authTimeTooOld)
        }
    }
}
