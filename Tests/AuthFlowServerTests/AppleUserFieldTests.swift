import AuthFlow
import AuthFlowBrowserTestSupport
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowSandbox
import Testing

@testable import AuthFlowServer

@Suite("Apple's unsigned user field: unreadable ones are refused and nothing is stored")
struct AppleUserFieldTests {
    static let bad: [(String, [UInt8])] = [
        ("raw invalid UTF-8", Array(#"{"name":{"firstName":"Ada"#.utf8) + [0xFF, 0xFE, 0xFD] + Array(#""}}"#.utf8)),
        ("percent-encoded invalid UTF-8", Array("%7B%22name%22%3A%7B%22firstName%22%3A%22%FF%FE%FD(%22%7D%7D".utf8)),
        ("not JSON", Array("Ada+Lovelace".utf8)),
        ("a name that is not an object", Array("%7B%22name%22%3A%22Ada%22%7D".utf8)),
    ]

    /// Posts Apple's answer same-origin (the browser holds the flow cookie) with `user` replaced by `value`,
    /// bytes as given.
    func deliver(
        _ answer: TestDeployment.ProviderAnswer, user value: [UInt8], app: TestDeployment, browser: TestBrowser
    ) async throws -> HTTPClientResponse {
        guard case .post(let action, let fields) = answer else {
            Issue.record("expected Apple to answer with a form POST")
            throw CancellationError()
        }
        let body = Array(FormURLEncoding.encode(fields.filter { $0.0 != "user" }).utf8) + Array("&user=".utf8) + value
        return try await browser.post(
            app.appURL + TestBrowser.path(of: action), rawBody: body, from: app.appURL)
    }

    @Test(arguments: 0..<4) func aFirstLoginWithABadUserFieldIsRefusedAndStoresNothing(_ index: Int) async throws {
        try await TestDeployment.with { app in
            let browser = TestBrowser()
            let answer = try await app.authorize(browser, provider: "apple", as: People.bob)
            let response = try await deliver(answer, user: Self.bad[index].1, app: app, browser: browser)
            #expect(response.status == 400, "\(Self.bad[index].0)")
            #expect(errorCode(response) == "invalid_user_field", "\(Self.bad[index].0)")
            #expect(browser.cookie(app.sessionCookie, for: app.appURL) == nil)
            #expect(try await app.stores.accounts.identity(IdentityKey(provider: "apple", subject: "bob-2")) == nil)
            // The server stays healthy: the next sign-in from another browser works.
            #expect(try await app.signIn(TestBrowser(), provider: "google", as: People.alice).status == 302)
        }
    }

    @Test func aStoredNameIsNeverReplacedByOneThatFailedToParse() async throws {
        try await TestDeployment.with { app in
            let browser = TestBrowser()
            #expect(try await app.signIn(browser, provider: "apple", as: People.bob).status == 303)
            #expect(try await app.session(browser).json?["name"]?.stringValue == "Bob Other")
            for (label, value) in Self.bad {
                let again = TestBrowser()
                let answer = try await app.authorize(again, provider: "apple", as: People.bob)
                let response = try await deliver(answer, user: value, app: app, browser: again)
                #expect(errorCode(response) == "invalid_user_field", "\(label)")
            }
            let identity = try await app.stores.accounts.identity(IdentityKey(provider: "apple", subject: "bob-2"))
            #expect(identity?.name == "Bob Other")
        }
    }

    @Test func theBouncePageSendsNoReferrer() async throws {
        try await TestDeployment.with { app in
            let browser = TestBrowser()
            guard
                case .post(let action, let fields) = try await app.authorize(browser, provider: "apple", as: People.bob)
            else {
                Issue.record("expected Apple to answer with a form POST")
                return
            }
            let bounce = try await browser.post(action, form: fields, from: app.sandbox.baseURL)
            #expect(bounce.status == 200)
            #expect(HTMLForm(bounce.text) != nil)
            #expect(bounce.headers["Referrer-Policy"] == "no-referrer")
        }
    }
}
