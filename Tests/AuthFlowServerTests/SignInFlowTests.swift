import AuthFlow
import AuthFlowBrowserTestSupport
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowSandbox
import Foundation
import Testing

@testable import AuthFlowServer

@Suite("Sign-in over loopback HTTP against the sandbox")
struct SignInFlowTests {
    @Test(
        "each provider signs in and /auth/session returns the verified identity",
        arguments: ["apple", "google", "facebook", "x"])
    func signsInWithEachProvider(provider: String) async throws {
        try await TestDeployment.with { app in
            let browser = TestBrowser()
            let done = try await app.signIn(browser, provider: provider, as: People.alice)
            #expect(done.status == (provider == "apple" ? 303 : 302))
            #expect(done.location == "/")
            let session = try await app.session(browser)
            #expect(session.status == 200)
            let json = try #require(session.json?.objectValue)
            #expect(
                Set(json.keys) == ["user_id", "provider", "subject", "email", "email_verified", "name", "expires_at"])
            #expect(json["provider"]?.stringValue == provider)
            #expect(json["subject"]?.stringValue == "alice-1")
            #expect(json["name"]?.stringValue == "Alice Example")
            #expect(json["user_id"]?.stringValue?.isEmpty == false)
            #expect(json["expires_at"]?.stringValue?.hasSuffix("Z") == true)
            // Email only from verified sources: Facebook's Graph email and X (no email) are not verified.
            switch provider {
            case "apple", "google":
                #expect(json["email"]?.stringValue == "alice@example.com")
                #expect(json["email_verified"] == .bool(true))
            default:
                #expect(json["email"] == .null)
                #expect(json["email_verified"] == .bool(false))
            }
        }
    }

    @Test func sessionCookieIsHttpOnlyLaxAndNotSecureOnLocalhost() async throws {
        try await TestDeployment.with { app in
            let browser = TestBrowser()
            let start = try await browser.get("\(app.appURL)/auth/google/login?return_to=/")
            let flow = try #require(start.headers.values("Set-Cookie").first { $0.hasPrefix("authflow_flow_") })
            #expect(flow.contains("HttpOnly") && flow.contains("SameSite=Lax") && flow.contains("Path=/;"))
            let answer = try await app.authorize(browser, provider: "google", as: People.alice)
            let done = try await app.deliver(answer, in: browser)
            let session = try #require(done.headers.values("Set-Cookie").first { $0.hasPrefix("authflow_session=") })
            #expect(session.contains("HttpOnly") && session.contains("SameSite=Lax") && session.contains("Path=/"))
            #expect(!session.contains("Secure"))
        }
    }

    @Test func aSuccessfulCallbackClearsItsFlowCookie() async throws {
        try await TestDeployment.with { app in
            let browser = TestBrowser()
            let answer = try await app.authorize(browser, provider: "google", as: People.alice)
            let flows = browser.cookies(for: app.appURL).filter { $0.name.hasPrefix("authflow_flow_") }
            let flow = try #require(flows.count == 1 ? flows.first : nil)
            let done = try await app.deliver(answer, in: browser)
            #expect(done.status == 302)
            let cleared = done.headers.values("Set-Cookie").filter { $0.hasPrefix(flow.name + "=;") }
            #expect(cleared.count == 1)
            #expect(cleared.first?.contains("Max-Age=0") == true)
            #expect(!browser.cookies(for: app.appURL).contains { $0.name.hasPrefix("authflow_flow_") })
            #expect(try await app.session(browser).status == 200)
        }
    }

    @Test func sessionIDChangesAtEachSignIn() async throws {
        try await TestDeployment.with { app in
            let browser = TestBrowser()
            try await app.signIn(browser, provider: "google", as: People.alice)
            let first = try #require(browser.cookie(app.sessionCookie, for: app.appURL))
            try await app.signIn(browser, provider: "google", as: People.alice)
            let second = try #require(browser.cookie(app.sessionCookie, for: app.appURL))
            #expect(first != second)
            // The session the browser had before is over; the new one works.
            let stale = TestBrowser()
            stale.setCookie(app.sessionCookie, first, for: app.appURL)
            #expect(try await app.session(stale).status == 401)
            #expect(try await app.session(browser).status == 200)
        }
    }

    @Test func aFixedSessionCookieIsReplacedAtSignIn() async throws {
        try await TestDeployment.with { app in
            let browser = TestBrowser()
            browser.setCookie(app.sessionCookie, "attacker-chosen-session-id", for: app.appURL)
            try await app.signIn(browser, provider: "x", as: People.carol)
            #expect(browser.cookie(app.sessionCookie, for: app.appURL) != "attacker-chosen-session-id")
            #expect(try await app.session(browser).status == 200)
        }
    }

    @Test func appleCrossSitePostGetsTheBouncePageAndTheRePostCompletes() async throws {
        try await TestDeployment.with { app in
            let browser = TestBrowser()
            let answer = try await app.authorize(browser, provider: "apple", as: People.alice)
            guard case .post(let action, let fields) = answer else {
                Issue.record("expected Apple to answer with a form POST")
                return
            }
            #expect(action == "\(app.appURL)/auth/apple/callback")
            let first = try await browser.post(action, form: fields, from: app.sandbox.baseURL)
            #expect(first.status == 200)
            #expect(first.headers["Cache-Control"] == "no-store")
            let csp = try #require(first.headers["Content-Security-Policy"])
            #expect(csp.contains("default-src 'none'") && csp.contains("script-src 'sha256-"))
            #expect(!first.text.contains("src=\"http"))
            let bounce = try #require(HTMLForm(first.text))
            #expect(bounce.action == "/auth/apple/callback")
            #expect(bounce.value("authflow_bounce") == "1")
            #expect(bounce.value("state") == fields.first { $0.0 == "state" }?.1)
            #expect(try await app.session(browser).status == 401)  // nothing consumed yet
            let done = try await browser.post(app.appURL + bounce.action, form: bounce.fields, from: app.appURL)
            #expect(done.status == 303)
            #expect(try await app.session(browser).status == 200)
        }
    }

    @Test func aBouncedPostStillWithoutTheFlowCookieIsRefused() async throws {
        try await TestDeployment.with { app in
            let browser = TestBrowser()
            let answer = try await app.authorize(browser, provider: "apple", as: People.alice)
            guard case .post(let action, let fields) = answer else {
                Issue.record("expected Apple to answer with a form POST")
                return
            }
            // The attacker's page re-POSTs with the marker from another site: no Lax cookie travels.
            let forged = try await browser.post(
                action, form: fields + [("authflow_bounce", "1")], from: app.sandbox.baseURL)
            #expect(forged.status == 403)
            #expect(errorCode(forged) == "browser_binding_mismatch")
        }
    }

    @Test func appleFirstLoginNameIsStoredAndKeptOnTheNextSignIn() async throws {
        try await TestDeployment.with { app in
            let browser = TestBrowser()
            // Apple's id_token carries no name: it comes only from the first-login `user` field.
            try await app.signIn(browser, provider: "apple", as: People.bob)
            #expect(try await app.session(browser).json?["name"]?.stringValue == "Bob Other")
            let again = TestBrowser()
            let answer = try await app.authorize(again, provider: "apple", as: People.bob)
            guard case .post(_, let fields) = answer else {
                Issue.record("expected Apple to answer with a form POST")
                return
            }
            #expect(!fields.contains { $0.0 == "user" })
            #expect(try await app.deliver(answer, in: again).status == 303)
            #expect(try await app.session(again).json?["name"]?.stringValue == "Bob Other")
        }
    }

    @Test func demoPageShowsTheIdentityAndTheTraceOfTheSignIn() async throws {
        try await TestDeployment.with { app in
            let browser = TestBrowser()
            let signedOut = try await browser.get(app.appURL + "/")
            for name in ["apple", "google", "facebook", "x"] {
                #expect(signedOut.text.contains("id=\"signin-\(name)\" href=\"/auth/\(name)/login?return_to=/\""))
            }
            try await app.signIn(browser, provider: "google", as: People.alice)
            let page = try await browser.get(app.appURL + "/")
            #expect(page.text.contains("<dl id=\"identity\">"))
            #expect(page.text.contains("<dd id=\"subject\">alice-1</dd>"))
            #expect(page.text.contains("<dd id=\"email\">alice@example.com</dd>"))
            #expect(page.text.contains("<ol id=\"trace\">"))
            for step in [
                "authorization_redirect", "callback", "token_exchange", "jwks", "id_token_verification", "complete",
            ] {
                #expect(page.text.contains("data-step=\"\(step)\""), "missing step \(step)")
            }
            #expect(page.text.contains("round trip to the provider"))
            #expect(page.text.contains("<button id=\"signout\" type=\"submit\">Sign out</button>"))
            #expect(page.text.contains("action=\"/auth/logout?return_to=/\""))
        }
    }

    @Test func demoServesTheCapabilityMatrixOfItsProviders() async throws {
        try await TestDeployment.with { app in
            let browser = TestBrowser()
            let home = try await browser.get(app.appURL + "/")
            #expect(home.text.contains("<a id=\"matrix\" href=\"/matrix\">"))
            let matrix = try await browser.get(app.appURL + "/matrix")
            #expect(matrix.status == 200)
            #expect(matrix.headers["Content-Type"]?.hasPrefix("text/html") == true)
            #expect(matrix.text.contains("Capability matrix"))
            for name in ["apple", "google", "facebook", "x"] { #expect(matrix.text.contains(name)) }
        }
    }

    @Test func demoPageUnderAnotherHostRedirectsToThePublicURL() async throws {
        try await TestDeployment.with { app in
            let listenURL = app.appURL.replacingOccurrences(of: "localhost", with: "127.0.0.1")
            let response = try await TestBrowser().get(listenURL + "/")
            #expect(response.status == 302)
            #expect(response.location == app.appURL + "/")
            #expect(try await TestBrowser().get(app.appURL + "/").status == 200)
        }
    }

    @Test func healthzAnswersWhenTheStoresDo() async throws {
        try await TestDeployment.with { app in
            let response = try await TestBrowser().get(app.appURL + "/healthz")
            #expect(response.status == 200)
            #expect(response.text == "{\"status\":\"ok\"}")
        }
    }

    @Test func unknownProviderAndRouteAreRefused() async throws {
        try await TestDeployment.with { app in
            let browser = TestBrowser()
            let unknown = try await browser.get(app.appURL + "/auth/github/login")
            #expect(unknown.status == 400)
            #expect(errorCode(unknown) == "unknown_provider")
            let wrongMethod = try await browser.get(app.appURL + "/auth/logout")
            #expect(wrongMethod.status == 405)
        }
    }
}
