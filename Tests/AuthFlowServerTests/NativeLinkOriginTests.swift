import AuthFlow
import AuthFlowBrowserTestSupport
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowSandbox
import Foundation
import Testing

@testable import AuthFlowServer

/// `POST /auth/{provider}/native` with `"intent": "link"` joins an identity to the user of the request's session.
/// Another site must not be able to make a signed-in browser post an attacker's token there: a link authorised by
/// the session cookie passes the same-origin check, and the route reads `application/json` only (a form or
/// `text/plain` POST needs no preflight, so a page anywhere could send one).
@Suite("Native link: a session cookie authorises it only from the server's own origin")
struct NativeLinkOriginTests {
    /// The victim's browser, signed in with Google; returns its session cookie header.
    static func victimCookie(_ app: TestDeployment) async throws -> String {
        let browser = TestBrowser()
        let signedIn = try await app.signIn(browser, provider: "google", as: People.alice)
        try #require(signedIn.status == 302, "\(signedIn.text)")
        let value = try #require(browser.cookie(app.sessionCookie, for: app.appURL))
        return "\(app.sessionCookie)=\(value)"
    }

    /// A native `link` body for Apple carrying `identity`'s fresh token.
    static func linkBody(_ app: TestDeployment, as identity: SandboxIdentity) async throws -> [UInt8] {
        let nonce = try await app.nativeNonce("apple")
        let credential = try await app.sandboxCredential(
            "apple", as: identity, audience: NativeApp.bundleID, tokenNonce: NativeApp.hashed(nonce))
        let body: JSONValue = .object([
            "id_token": .string(credential.idToken), "nonce": .string(nonce), "intent": "link",
        ])
        return Array(body.serialized().utf8)
    }

    static func post(_ app: TestDeployment, body: [UInt8], headers: [(String, String)]) async throws
        -> HTTPClientResponse
    {
        var request = HTTPClientRequest(method: "POST", url: app.appURL + "/auth/apple/native")
        request.body = body
        for (name, value) in headers { request.headers[name] = value }
        request.timeout = 60
        return try await CurlHTTPClient().send(request)
    }

    @Test(arguments: [
        ("text/plain", "http://evil.example", "cross-site"),
        ("application/x-www-form-urlencoded", "http://evil.example", "cross-site"),
        ("application/json", "http://evil.example", "cross-site"),
        ("text/plain", "http://www.localhost", "same-site"),
        ("application/json", "http://www.localhost", "same-site"),
    ])
    func anotherSitesPostOfAnAttackersTokenLinksNothing(type: String, origin: String, site: String) async throws {
        try await TestDeployment.with(NativeApp.settings) { app in
            let cookie = try await Self.victimCookie(app)
            let body = try await Self.linkBody(app, as: People.bob)
            let answer = try await Self.post(
                app, body: body,
                headers: [("Cookie", cookie), ("Content-Type", type), ("Origin", origin), ("Sec-Fetch-Site", site)])
            #expect(answer.status == 403, "\(answer.text)")
            #expect(errorCode(answer) == "cross_origin_request")
            #expect(try await app.stores.accounts.identity(IdentityKey(provider: "apple", subject: "bob-2")) == nil)
        }
    }

    @Test(arguments: ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"])
    func aBodyThatIsNotJSONIsRefusedWhateverItsOrigin(type: String) async throws {
        try await TestDeployment.with(NativeApp.settings) { app in
            let cookie = try await Self.victimCookie(app)
            let body = try await Self.linkBody(app, as: People.bob)
            // No Origin and no Sec-Fetch-Site: what an old browser or a plug-in might send.
            let answer = try await Self.post(app, body: body, headers: [("Cookie", cookie), ("Content-Type", type)])
            #expect(answer.status == 415, "\(answer.text)")
            #expect(errorCode(answer) == "unsupported_media_type")
            #expect(try await app.stores.accounts.identity(IdentityKey(provider: "apple", subject: "bob-2")) == nil)
        }
    }

    @Test func theUsersOwnPageLinksWithTheCookie() async throws {
        try await TestDeployment.with(NativeApp.settings) { app in
            let cookie = try await Self.victimCookie(app)
            let user = try await app.stores.accounts.identity(IdentityKey(provider: "google", subject: "alice-1"))
            let body = try await Self.linkBody(app, as: People.alice)
            let answer = try await Self.post(
                app, body: body,
                headers: [
                    ("Cookie", cookie), ("Content-Type", "application/json"), ("Origin", app.appURL),
                    ("Sec-Fetch-Site", "same-origin"),
                ])
            #expect(answer.status == 200, "\(answer.text)")
            let linked = try await app.stores.accounts.identity(IdentityKey(provider: "apple", subject: "alice-1"))
            #expect(linked?.userID == user?.userID)
        }
    }

    @Test func anAppLinksWithItsBearerSession() async throws {
        try await TestDeployment.with(NativeApp.settings) { app in
            let signedIn = try await app.nativeSignIn("google", as: People.alice)
            let token = try #require(signedIn["session_token"])
            let body = try await Self.linkBody(app, as: People.alice)
            // A bearer is sent only by code holding it: another site's Origin does not matter.
            let answer = try await Self.post(
                app, body: body,
                headers: [
                    ("Authorization", "Bearer \(token)"), ("Content-Type", "application/json"),
                    ("Origin", "http://evil.example"),
                ])
            #expect(answer.status == 200, "\(answer.text)")
            let linked = try await app.stores.accounts.identity(IdentityKey(provider: "apple", subject: "alice-1"))
            #expect(linked?.userID.rawValue == signedIn["user_id"])
        }
    }
}
