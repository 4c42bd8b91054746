import AuthFlow
import AuthFlowBrowserTestSupport
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowSandbox
import Foundation
import Testing

@testable import AuthFlowServer

@Suite("Facebook data deletion and deauthorize callbacks")
struct FacebookEventTests {
    static let key = IdentityKey(provider: "facebook", subject: "alice-1")
    static let clientID = "1234567890"
    /// `FacebookSignedRequest.maximumAge`: how old a signed request may be, in seconds.
    static let maximumAge: Double = 600

    /// Asks the sandbox to send Facebook's callback to `endpoint` (`data-deletion` or `deauthorize`).
    func send(_ app: TestDeployment, _ endpoint: String, userID: String = "alice-1") async throws -> JSONValue {
        let request = HTTPClientRequest.form(
            url: app.sandbox.baseURL + "/_sandbox/facebook/\(endpoint)",
            fields: [
                ("user_id", userID), ("client_id", Self.clientID), ("to", app.appURL + "/auth/facebook/\(endpoint)"),
            ])
        let response = try await CurlHTTPClient().send(request)
        #expect(response.status == 200)
        return try JSONValue.parse(response.body)
    }

    /// POSTs a `signed_request` of our own making to the app.
    func post(_ app: TestDeployment, _ endpoint: String, signedRequest: String) async throws -> HTTPClientResponse {
        try await CurlHTTPClient().send(
            .form(url: app.appURL + "/auth/facebook/\(endpoint)", fields: [("signed_request", signedRequest)]))
    }

    /// A signed request over `payload` with the app secret (or `secret`), optionally with `=` padding kept.
    func signed(_ app: TestDeployment, payload: JSONValue, secret: String? = nil, padded: Bool = false) throws -> String
    {
        let appSecret = try #require(secret ?? app.sandbox.client(.facebook, clientID: Self.clientID)?.clientSecret)
        var encoded = Base64URL.encode(Array(payload.serialized().utf8))
        if padded { while encoded.utf8.count % 4 != 0 { encoded += "=" } }
        var signature = Base64URL.encode(Digest.hmacSHA256(key: Array(appSecret.utf8), message: Array(encoded.utf8)))
        if padded { while signature.utf8.count % 4 != 0 { signature += "=" } }
        return signature + "." + encoded
    }

    func payload(
        _ app: TestDeployment, algorithm: String = "HMAC-SHA256", age: Double = 0, extra: [String: JSONValue] = [:]
    ) -> JSONValue {
        var fields: [String: JSONValue] = [
            "algorithm": .string(algorithm),
            "issued_at": .integer(Int64(app.clock.now().timeIntervalSince1970 - age)), "user_id": .string("alice-1"),
        ]
        fields.merge(extra) { _, new in new }
        return .object(fields)
    }

    func signedInAlice(_ app: TestDeployment) async throws -> (TestBrowser, UserID) {
        let browser = TestBrowser()
        try await app.signIn(browser, provider: "facebook", as: People.alice)
        let identity = try #require(try await app.stores.accounts.identity(Self.key))
        #expect(try await app.stores.accounts.tokens(for: Self.key) != nil)
        return (browser, identity.userID)
    }

    @Test func dataDeletionRemovesTheIdentityTokensAndSessionsAndTheStatusPageSaysSo() async throws {
        try await TestDeployment.with { app in
            let (browser, firstUser) = try await signedInAlice(app)
            let answer = try await send(app, "data-deletion")
            #expect(answer["status"] == .integer(200))
            let code = try #require(answer["response"]?["confirmation_code"]?.stringValue)
            let url = try #require(answer["response"]?["url"]?.stringValue)
            #expect(url == app.appURL + "/auth/facebook/data-deletion/" + code)
            #expect(try await app.stores.accounts.identity(Self.key) == nil)
            #expect(try await app.stores.accounts.tokens(for: Self.key) == nil)
            #expect(try await app.session(browser).status == 401)

            let status = try await CurlHTTPClient().send(
                HTTPClientRequest(method: "GET", url: url, headers: ["Accept": "application/json"]))
            #expect(status.status == 200)
            #expect((try? JSONValue.parse(status.body))?["status"] == .string("completed"))
            let page = try await CurlHTTPClient().send(HTTPClientRequest(method: "GET", url: url))
            #expect(page.status == 200)
            #expect(page.text.contains(code))
            let unknown = try await CurlHTTPClient().send(
                HTTPClientRequest(
                    method: "GET", url: app.appURL + "/auth/facebook/data-deletion/" + String(repeating: "a", count: 32)
                ))
            #expect(unknown.status == 404)

            // A new Facebook sign-in makes a new user: nothing links the old one.
            let again = TestBrowser()
            try await app.signIn(again, provider: "facebook", as: People.alice)
            let second = try #require(try await app.stores.accounts.identity(Self.key))
            #expect(second.userID != firstUser)
        }
    }

    @Test func aRetriedDeletionGetsTheSameCodeAndChangesNothingMore() async throws {
        try await TestDeployment.with { app in
            _ = try await signedInAlice(app)
            let request = try signed(app, payload: payload(app))
            let first = try await post(app, "data-deletion", signedRequest: request)
            #expect(first.status == 200)
            let code = (try? JSONValue.parse(first.body))?["confirmation_code"]
            #expect(code != nil)
            try await app.signIn(TestBrowser(), provider: "facebook", as: People.alice)
            let retry = try await post(app, "data-deletion", signedRequest: request)
            #expect(retry.status == 200)
            #expect((try? JSONValue.parse(retry.body))?["confirmation_code"] == code)
            // The identity made by the later sign-in is untouched by the retry.
            #expect(try await app.stores.accounts.identity(Self.key) != nil)
        }
    }

    @Test func paddedAndUnpaddedSignedRequestsAreAccepted() async throws {
        try await TestDeployment.with { app in
            _ = try await signedInAlice(app)
            let padded = try signed(app, payload: payload(app), padded: true)
            #expect(padded.contains("="))
            #expect(try await post(app, "deauthorize", signedRequest: padded).status == 200)
            #expect(try await app.stores.accounts.tokens(for: Self.key) == nil)
            let unpadded = try signed(app, payload: payload(app, age: 1))
            #expect(try await post(app, "data-deletion", signedRequest: unpadded).status == 200)
            #expect(try await app.stores.accounts.identity(Self.key) == nil)
        }
    }

    @Test func deauthorizeDeletesTokensAndEndsSessionsButKeepsTheIdentity() async throws {
        try await TestDeployment.with { app in
            let (browser, _) = try await signedInAlice(app)
            let answer = try await send(app, "deauthorize")
            #expect(answer["status"] == .integer(200))
            #expect(answer["response"]?["applied"] == .bool(true))
            #expect(try await app.stores.accounts.tokens(for: Self.key) == nil)
            #expect(try await app.session(browser).status == 401)
            #expect(try await app.stores.accounts.identity(Self.key)?.isDisabled == false)
        }
    }

    @Test func aDeauthorizeReplayedToDataDeletionAfterANewSignInChangesNothing() async throws {
        try await TestDeployment.with { app in
            let (first, _) = try await signedInAlice(app)
            let request = try signed(app, payload: payload(app))
            let deauthorize = try await post(app, "deauthorize", signedRequest: request)
            #expect(deauthorize.status == 200)
            #expect((try? JSONValue.parse(deauthorize.body))?["applied"] == .bool(true))
            #expect(try await app.session(first).status == 401)
            // Alice signs in again; the same signed_request, within its age, is posted to data deletion.
            let (again, user) = try await signedInAlice(app)
            let replay = try await post(app, "data-deletion", signedRequest: request)
            #expect(replay.status == 200)
            #expect(try await app.stores.accounts.identity(Self.key)?.userID == user)
            #expect(try await app.stores.accounts.tokens(for: Self.key) != nil)
            #expect(try await app.session(again).status == 200)
        }
    }

    @Test func aDataDeletionReplayedToDeauthorizeAfterANewSignInChangesNothing() async throws {
        try await TestDeployment.with { app in
            _ = try await signedInAlice(app)
            let request = try signed(app, payload: payload(app))
            #expect(try await post(app, "data-deletion", signedRequest: request).status == 200)
            #expect(try await app.stores.accounts.identity(Self.key) == nil)
            let (again, _) = try await signedInAlice(app)
            let replay = try await post(app, "deauthorize", signedRequest: request)
            #expect(replay.status == 200)
            #expect((try? JSONValue.parse(replay.body))?["applied"] == .bool(false))
            #expect(try await app.stores.accounts.tokens(for: Self.key) != nil)
            #expect(try await app.session(again).status == 200)
        }
    }

    @Test func aSignedRequestNearTheEndOfItsAgeIsAccepted() async throws {
        try await TestDeployment.with { app in
            let (browser, _) = try await signedInAlice(app)
            let request = try signed(app, payload: payload(app, age: Self.maximumAge - 30))
            let response = try await post(app, "deauthorize", signedRequest: request)
            #expect(response.status == 200)
            #expect((try? JSONValue.parse(response.body))?["applied"] == .bool(true))
            #expect(try await app.session(browser).status == 401)
        }
    }

    @Test(arguments: [
        "bad-hmac", "other-secret", "algorithm", "stale", "future", "no-user", "one-part", "not-base64", "login-code",
        "login-token",
    ])
    func forgedOrStaleSignedRequestsAreRefusedWithNothingApplied(_ forgery: String) async throws {
        try await TestDeployment.with { app in
            let (browser, _) = try await signedInAlice(app)
            let request: String
            switch forgery {
            case "bad-hmac":
                let good = try signed(app, payload: payload(app))
                let flipped: Character = good.first == "A" ? "B" : "A"
                request = String(flipped) + good.dropFirst()
            case "other-secret": request = try signed(app, payload: payload(app), secret: "not-the-app-secret")
            case "algorithm": request = try signed(app, payload: payload(app, algorithm: "HMAC-SHA1"))
            case "stale": request = try signed(app, payload: payload(app, age: Self.maximumAge + 30))
            case "login-code": request = try signed(app, payload: payload(app, extra: ["code": .string("AQD-login")]))
            case "login-token":
                request = try signed(app, payload: payload(app, extra: ["oauth_token": .string("EAAB-token")]))
            case "future": request = try signed(app, payload: payload(app, age: -3600))
            case "no-user":
                request = try signed(
                    app,
                    payload: .object([
                        "algorithm": .string("HMAC-SHA256"),
                        "issued_at": .integer(Int64(app.clock.now().timeIntervalSince1970)),
                    ]))
            case "one-part": request = Base64URL.encode(Array(payload(app).serialized().utf8))
            default: request = "!!!." + Base64URL.encode(Array(payload(app).serialized().utf8))
            }
            for endpoint in ["data-deletion", "deauthorize"] {
                let response = try await post(app, endpoint, signedRequest: request)
                #expect(response.status == 400, "\(forgery) at \(endpoint)")
                #expect(errorCode(response) == "invalid_signed_request")
            }
            #expect(try await app.stores.accounts.identity(Self.key) != nil)
            #expect(try await app.stores.accounts.tokens(for: Self.key) != nil)
            #expect(try await app.session(browser).status == 200)
        }
    }

    @Test func aMissingSignedRequestAndAWrongMethodAreRefused() async throws {
        try await TestDeployment.with { app in
            let empty = try await CurlHTTPClient().send(
                .form(url: app.appURL + "/auth/facebook/data-deletion", fields: [("other", "x")]))
            #expect(empty.status == 400)
            #expect(errorCode(empty) == "invalid_signed_request")
            let get = try await CurlHTTPClient().send(
                HTTPClientRequest(method: "GET", url: app.appURL + "/auth/facebook/deauthorize"))
            #expect(get.status == 405)
        }
    }
}
