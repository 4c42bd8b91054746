import AuthFlow
import AuthFlowBrowserTestSupport
import AuthFlowHTTP
import AuthFlowSandbox
import Foundation
import Testing

@testable import AuthFlowServer

/// `server.path_prefix: /login`: every route, the redirect URI, Apple's re-POST page and the demo's links move
/// under it, and nothing answers under `/auth` any more.
@Suite("Sign-in routes under server.path_prefix")
struct PathPrefixTests {
    /// Under `/login`; cached checks live 10 minutes, so the one asked of `handleAtOnce` is still cached however
    /// slowly a busy test run goes on after the request that cached it.
    static var settings: TestDeployment.Settings {
        var settings = TestDeployment.Settings(pathPrefix: "/login")
        settings.sessionCacheLifetime = 600
        return settings
    }

    @Test(
        "each provider signs in under /login and /login/session returns the identity",
        arguments: ["apple", "google"])
    func signsInUnderThePrefix(provider: String) async throws {
        try await TestDeployment.with(Self.settings) { app in
            let browser = TestBrowser()
            let start = try await browser.get("\(app.appURL)/login/\(provider)/login?return_to=/")
            #expect(start.status == 302)
            let authorize = try #require(start.location.flatMap { URLComponents(string: $0) })
            let redirect = authorize.queryItems?.first { $0.name == "redirect_uri" }?.value
            #expect(redirect == "\(app.appURL)/login/\(provider)/callback")
            let answer = try await app.authorize(browser, provider: provider, as: People.alice)
            if case .post(let action, _) = answer {
                // Apple's cross-site form_post is bounced to the callback under the prefix.
                #expect(action == "\(app.appURL)/login/apple/callback")
            }
            let done = try await app.deliver(answer, in: browser)
            #expect(done.status == (provider == "apple" ? 303 : 302))
            let session = try await app.session(browser)
            #expect(session.status == 200)
            #expect(session.json?.objectValue?["subject"]?.stringValue == "alice-1")
            #expect(try await browser.get("\(app.appURL)/login/check").status == 202)
            // The cached answer (as nginx asks) follows the prefix too.
            let cookie = try #require(browser.cookie(app.sessionCookie, for: app.appURL))
            let check = HTTPServerRequest(
                method: "GET", path: "/login/check", headers: ["Cookie": "\(app.sessionCookie)=\(cookie)"],
                remoteAddress: "127.0.0.1")
            #expect(app.server.handleAtOnce(check)?.status == 202)
        }
    }

    @Test func nothingAnswersUnderAuthAnyMore() async throws {
        try await TestDeployment.with(Self.settings) { app in
            let browser = TestBrowser()
            try await app.signIn(browser, provider: "google", as: People.alice)
            for path in ["/auth/session", "/auth/check", "/auth/google/login", "/login", "/login/"] {
                let response = try await browser.get(app.appURL + path)
                #expect(response.status == 404, "\(path)")
                #expect(errorCode(response) == "not_found", "\(path)")
            }
            #expect(try await browser.get(app.appURL + "/healthz").status == 200)
            let home = try await browser.get(app.appURL + "/")
            #expect(home.text.contains("action=\"/login/logout?return_to=/\""))
            #expect(!home.text.contains("\"/auth/"))
        }
    }

    @Test func routedSegmentsMapOnlyThePrefix() {
        let prefix = RoutePrefix("/api/auth")
        #expect(prefix.routed(["api", "auth", "check"]) == ["auth", "check"])
        #expect(prefix.routed(["auth", "check"]) == ["", "check"])
        #expect(prefix.routed(["api", "auth"]) == ["api", "auth"])
        #expect(prefix.routed(["healthz"]) == ["healthz"])
        #expect(RoutePrefix("/auth").routed(["auth", "check"]) == ["auth", "check"])
    }
}
