import AuthFlow
import AuthFlowBrowserTestSupport
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowSandbox
import Testing

@testable import AuthFlowServer

@Suite("Apple's first-login name: each part capped on a character boundary")
struct AppleNameCapTests {
    /// Posts Apple's answer same-origin with `user` replaced by `user` (form-encoded here).
    func deliver(_ answer: TestDeployment.ProviderAnswer, user: String, app: TestDeployment, browser: TestBrowser)
        async throws -> HTTPClientResponse
    {
        guard case .post(let action, let fields) = answer else {
            Issue.record("expected Apple to answer with a form POST")
            throw CancellationError()
        }
        let form = fields.filter { $0.0 != "user" } + [("user", user)]
        return try await browser.post(app.appURL + TestBrowser.path(of: action), form: form, from: app.appURL)
    }

    @Test func aLongNameIsStoredCutToTheCapWithoutSplittingACharacter() async throws {
        try await TestDeployment.with { app in
            // 150 two-byte characters (300 bytes) and 250 ASCII letters; the cap is 200 bytes per part.
            let first = String(repeating: "é", count: 150)
            let last = String(repeating: "L", count: 250)
            let user = JSONValue.object([
                "name": .object(["firstName": .string(first), "lastName": .string(last)]),
                "email": .string(People.bob.email ?? ""),
            ])
            let browser = TestBrowser()
            let answer = try await app.authorize(browser, provider: "apple", as: People.bob)
            let response = try await deliver(answer, user: user.serialized(), app: app, browser: browser)
            #expect(response.status == 303, "\(response.status) \(response.text)")
            let identity = try await app.stores.accounts.identity(IdentityKey(provider: "apple", subject: "bob-2"))
            let name = try #require(identity?.name)
            #expect(name == String(repeating: "é", count: 100) + " " + String(repeating: "L", count: 200))
        }
    }

    @Test func aNameWithinTheCapIsStoredWhole() async throws {
        try await TestDeployment.with { app in
            let user = JSONValue.object(["name": .object(["firstName": "Ada", "lastName": "Lovelace"])])
            let browser = TestBrowser()
            let answer = try await app.authorize(browser, provider: "apple", as: People.bob)
            #expect(try await deliver(answer, user: user.serialized(), app: app, browser: browser).status == 303)
            let identity = try await app.stores.accounts.identity(IdentityKey(provider: "apple", subject: "bob-2"))
            #expect(identity?.name == "Ada Lovelace")
        }
    }
}
