import AuthFlow
import AuthFlowBrowserTestSupport
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowSandbox
import Testing

@testable import AuthFlowServer

@Suite("Login CSRF: a callback must belong to this browser's live flow for this provider")
struct CallbackProtectionTests {
    @Test func rejectsReplayedCallback() async throws {
        try await TestDeployment.with { app in
            let browser = TestBrowser()
            let answer = try await app.authorize(browser, provider: "google", as: People.alice)
            let flow = try #require(browser.cookies(for: app.appURL).first { $0.name.hasPrefix("authflow_flow_") })
            #expect(try await app.deliver(answer, in: browser).status == 302)
            // The sign-in cleared the flow cookie: a plain replay no longer belongs to this browser.
            let plain = try await app.deliver(answer, in: browser)
            #expect(plain.status == 403)
            #expect(errorCode(plain) == "browser_binding_mismatch")
            // With the flow cookie kept aside and sent again, the state is found spent.
            browser.setCookie(flow.name, flow.value, for: app.appURL)
            let replay = try await app.deliver(answer, in: browser)
            #expect(replay.status == 400)
            #expect(errorCode(replay) == "invalid_state")
        }
    }

    @Test func rejectsReplayedApplePost() async throws {
        try await TestDeployment.with { app in
            let browser = TestBrowser()
            let answer = try await app.authorize(browser, provider: "apple", as: People.alice)
            let flow = try #require(browser.cookies(for: app.appURL).first { $0.name.hasPrefix("authflow_flow_") })
            #expect(try await app.deliver(answer, in: browser).status == 303)
            // The sign-in cleared the flow cookie: a plain replay no longer belongs to this browser.
            let plain = try await app.deliver(answer, in: browser)
            #expect(plain.status == 403)
            #expect(errorCode(plain) == "browser_binding_mismatch")
            // With the flow cookie kept aside and sent again, the state is found spent.
            browser.setCookie(flow.name, flow.value, for: app.appURL)
            let replay = try await app.deliver(answer, in: browser)
            #expect(replay.status == 400)
            #expect(errorCode(replay) == "invalid_state")
        }
    }

    @Test(
        "a callback from another browser (no binding cookie) is refused",
        arguments: ["google", "facebook", "x", "apple"])
    func rejectsCallbackFromAnotherBrowser(provider: String) async throws {
        try await TestDeployment.with { app in
            let victim = TestBrowser()
            let attacker = TestBrowser()
            // The attacker starts a sign-in and makes the victim's browser deliver the provider's answer.
            let answer = try await app.authorize(attacker, provider: provider, as: People.bob)
            let response = try await app.deliver(answer, in: victim)
            #expect(response.status == 403)
            #expect(errorCode(response) == "browser_binding_mismatch")
            #expect(try await app.session(victim).status == 401)
        }
    }

    @Test func rejectsACallbackWhoseBrowserHasAnotherBinding() async throws {
        try await TestDeployment.with { app in
            let victim = TestBrowser()
            _ = try await victim.get("\(app.appURL)/auth/x/login?return_to=/")  // the victim has its own binding
            let answer = try await app.authorize(TestBrowser(), provider: "google", as: People.bob)
            let response = try await app.deliver(answer, in: victim)
            #expect(errorCode(response) == "browser_binding_mismatch")
        }
    }

    @Test func ignoresAForgedFlowCookie() async throws {
        try await TestDeployment.with { app in
            let browser = TestBrowser()
            let answer = try await app.authorize(browser, provider: "google", as: People.alice)
            let genuine = try #require(browser.cookies(for: app.appURL).first { $0.name.hasPrefix("authflow_flow_") })
            // The sealed record with one byte changed: it does not open, so the flow has no cookie.
            var bytes = Array(genuine.value.utf8)
            let index = bytes.count - 5
            bytes[index] = bytes[index] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
            browser.setCookie(genuine.name, String(decoding: bytes, as: UTF8.self), for: app.appURL)
            let response = try await app.deliver(answer, in: browser)
            #expect(response.status == 403)
            #expect(errorCode(response) == "browser_binding_mismatch")
            // The cookie was sent: the message says it did not open, not that there was none.
            let message = try #require(errorMessage(response))
            #expect(message.contains("found one that does not open here"))
            #expect(message.contains("another server.secret"))
            #expect(!message.contains("found none"))
        }
    }

    @Test func saysFoundNoneOnlyWhenNoFlowCookieWasSent() async throws {
        try await TestDeployment.with { app in
            let answer = try await app.authorize(TestBrowser(), provider: "google", as: People.bob)
            let response = try await app.deliver(answer, in: TestBrowser())
            #expect(errorCode(response) == "browser_binding_mismatch")
            #expect(errorMessage(response)?.hasSuffix("found none") == true)
        }
    }

    @Test func rejectsStateOfAnotherProvider() async throws {
        try await TestDeployment.with { app in
            let browser = TestBrowser()
            guard case .get(let url) = try await app.authorize(browser, provider: "google", as: People.alice) else {
                Issue.record("expected a GET callback")
                return
            }
            let query = url[url.firstIndex(of: "?")!...]
            let response = try await browser.get("\(app.appURL)/auth/x/callback\(query)")
            // The flow cookie is sealed for google: at x's callback it does not open.
            #expect(response.status == 403)
            #expect(errorCode(response) == "browser_binding_mismatch")
        }
    }

    @Test func rejectsExpiredState() async throws {
        try await TestDeployment.with { app in
            let browser = TestBrowser()
            let answer = try await app.authorize(browser, provider: "google", as: People.alice)
            app.clock.advance(by: 601)
            let response = try await app.deliver(answer, in: browser)
            #expect(response.status == 400)
            #expect(["invalid_state", "state_expired"].contains(errorCode(response)))
            #expect(try await app.session(browser).status == 401)
        }
    }

    @Test func rejectsUnknownState() async throws {
        try await TestDeployment.with { app in
            let browser = TestBrowser()
            _ = try await browser.get("\(app.appURL)/auth/google/login?return_to=/")
            let response = try await browser.get("\(app.appURL)/auth/google/callback?state=made-up&code=abc")
            // No flow cookie belongs to a made-up state.
            #expect(response.status == 403)
            #expect(errorCode(response) == "browser_binding_mismatch")
        }
    }

    @Test(
        "open-redirect return_to values are refused",
        arguments: [
            "//evil.example/", "/\\evil.example", "https://evil.example/", "javascript:alert(1)", "/%2f%2fevil.example",
            "/%5cevil.example", "/%2e%2e/admin", "/\t/evil.example", "evil.example", "http://localhost.evil.example/",
            "/a/../../evil", "%2F%2Fevil.example", "/\u{0}x", "https:evil.example",
        ])
    func refusesOpenRedirects(returnTo: String) async throws {
        try await TestDeployment.with { app in
            let encoded = String(FormURLEncoding.encode([("r", returnTo)]).dropFirst(2))
            let response = try await TestBrowser().get("\(app.appURL)/auth/google/login?return_to=\(encoded)")
            #expect(response.status == 400)
            #expect(errorCode(response) == "invalid_return_to")
            #expect(response.location == nil)
        }
    }

    @Test func returnsToAnAllowedPathAfterSignIn() async throws {
        var settings = TestDeployment.Settings()
        settings.allowedReturnTo = ["/app"]
        try await TestDeployment.with(settings) { app in
            let browser = TestBrowser()
            let done = try await app.signIn(browser, provider: "google", as: People.alice, returnTo: "/app/inbox?x=1")
            #expect(done.location == "/app/inbox?x=1")
            let outside = try await browser.get("\(app.appURL)/auth/google/login?return_to=/application")
            #expect(errorCode(outside) == "invalid_return_to")
        }
    }

    @Test func errorsAreHTMLWhenTheBrowserPrefersIt() async throws {
        try await TestDeployment.with { app in
            let response = try await TestBrowser().get(
                "\(app.appURL)/auth/google/callback?state=nope&code=x",
                headers: [("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")])
            #expect(response.status == 403)
            #expect(response.headers["Content-Type"]?.hasPrefix("text/html") == true)
            #expect(response.text.contains("browser_binding_mismatch"))
        }
    }

    @Test func providerErrorIsReported() async throws {
        try await TestDeployment.with { app in
            let browser = TestBrowser()
            guard case .get(let url) = try await app.authorize(browser, provider: "google", as: People.alice) else {
                Issue.record("expected a GET callback")
                return
            }
            // The user cancelled at the provider: same state, an error instead of a code.
            let state = try #require(
                url.split(separator: "&").first { $0.contains("state=") }?.split(separator: "=").last)
            let response = try await browser.get(
                "\(app.appURL)/auth/google/callback?state=\(state)&error=access_denied")
            #expect(response.status == 401)
            #expect(errorCode(response) == "provider_error")
        }
    }
}

/// The JSON `{"message": …}` of a response, if any.
private func errorMessage(_ response: HTTPClientResponse) -> String? {
    (try? JSONValue.parse(response.body))?["message"]?.stringValue
}
