import AuthFlow
import AuthFlowBrowserTestSupport
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowSandbox
import Foundation
import Testing

@testable import AuthFlowServer

@Suite("Demo page event buttons")
struct DemoEventsTests {
    /// The demo page's event form whose button says `label`.
    func form(_ page: String, label: String) throws -> HTMLForm {
        let button = try #require(page.range(of: ">\(label)</button>"))
        let start = try #require(page[..<button.lowerBound].range(of: "<form", options: .backwards))
        return try #require(HTMLForm(String(page[start.lowerBound..<button.upperBound])))
    }

    @Test func aSignedInGoogleUserCanMakeTheSandboxRevokeTheirSessions() async throws {
        try await TestDeployment.with { app in
            let browser = TestBrowser()
            try await app.signIn(browser, provider: "google", as: People.alice)
            let page = try await browser.get(app.appURL + "/")
            #expect(page.text.contains("id=\"events\""))
            #expect(
                page.headers["Content-Security-Policy"]?.contains("form-action 'self' \(app.sandbox.baseURL)") == true)
            let revoke = try form(page.text, label: "RISC sessions-revoked")
            #expect(revoke.action == app.sandbox.baseURL + "/_sandbox/google/risc")
            #expect(revoke.value("to") == app.appURL + "/auth/google/events")
            #expect(revoke.value("sub") == "alice-1")
            let sent = try await browser.post(revoke.action, form: revoke.fields, from: app.appURL)
            #expect(sent.status == 200)
            #expect((try? JSONValue.parse(sent.body))?["status"] == .integer(202))
            #expect(try await app.session(browser).status == 401)
        }
    }

    @Test func facebookAndAppleUsersSeeTheirProvidersEventsAndSignedOutVisitorsNone() async throws {
        try await TestDeployment.with { app in
            #expect(try await TestBrowser().get(app.appURL + "/").text.contains("id=\"events\"") == false)
            let facebook = TestBrowser()
            try await app.signIn(facebook, provider: "facebook", as: People.alice)
            let page = try await facebook.get(app.appURL + "/").text
            #expect(try form(page, label: "Facebook data deletion").value("user_id") == "alice-1")
            #expect(page.contains("RISC") == false)
            let apple = TestBrowser()
            try await app.signIn(apple, provider: "apple", as: People.bob)
            let applePage = try await apple.get(app.appURL + "/").text
            #expect(
                try form(applePage, label: "Apple consent-revoked").value("to") == app.appURL
                    + "/auth/apple/notifications")
        }
    }
}
