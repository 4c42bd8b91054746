import AuthFlow
import AuthFlowBrowserTestSupport
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowSandbox
import Foundation
import Testing

@testable import AuthFlowServer

@Suite("Apple server-to-server notifications")
struct AppleNotificationTests {
    static let appleKey = IdentityKey(provider: "apple", subject: "bob-2")

    /// Signs Bob in with Apple and returns his browser.
    func signedInBob(_ app: TestDeployment) async throws -> TestBrowser {
        let browser = TestBrowser()
        try await app.signIn(browser, provider: "apple", as: People.bob)
        #expect(try await app.session(browser).status == 200)
        return browser
    }

    func notify(_ app: TestDeployment, _ body: [UInt8]) async throws -> HTTPClientResponse {
        var request = HTTPClientRequest(
            method: "POST", url: app.appURL + "/auth/apple/notifications",
            headers: ["Content-Type": "application/json"], body: body)
        request.timeout = 60
        return try await CurlHTTPClient().send(request)
    }

    func event(_ kind: AppleNotificationEvent.Kind, clientID: String = "com.example.web") -> AppleNotificationEvent {
        AppleNotificationEvent(
            kind: kind, subject: "bob-2", clientID: clientID, email: "relay@privaterelay.appleid.com",
            isPrivateEmail: true)
    }

    @Test func emailDisabledAndEnabledAreAppliedOnceEach() async throws {
        try await TestDeployment.with { app in
            _ = try await signedInBob(app)
            let disabled = try app.sandbox.appleNotificationBody(for: event(.emailDisabled)).body
            let first = try await notify(app, disabled)
            #expect(first.status == 200)
            #expect((try? JSONValue.parse(first.body))?["applied"] == .bool(true))
            let stored = try #require(try await app.stores.accounts.identity(Self.appleKey))
            #expect(stored.emailDisabled)
            #expect(stored.email == "relay@privaterelay.appleid.com")
            #expect(stored.isPrivateEmail)

            let enabled = try app.sandbox.appleNotificationBody(for: event(.emailEnabled)).body
            #expect(try await notify(app, enabled).status == 200)
            #expect(try await app.stores.accounts.identity(Self.appleKey)?.emailDisabled == false)

            // Replaying the first notification changes nothing.
            let replay = try await notify(app, disabled)
            #expect(replay.status == 200)
            #expect((try? JSONValue.parse(replay.body))?["applied"] == .bool(false))
            #expect(try await app.stores.accounts.identity(Self.appleKey)?.emailDisabled == false)
        }
    }

    @Test func notificationsReuseTheKeysFetchedAtSignIn() async throws {
        try await TestDeployment.with { app in
            _ = try await signedInBob(app)
            #expect(app.sandbox.requestCounts(for: .apple).jwks == 1)
            let body = try app.sandbox.appleNotificationBody(for: event(.emailDisabled)).body
            #expect(try await notify(app, body).status == 200)
            // Sign-in and the notification endpoint share one JWKS cache: no second fetch.
            #expect(app.sandbox.requestCounts(for: .apple).jwks == 1)
        }
    }

    @Test func consentRevokedDeletesTokensAndEndsSessions() async throws {
        try await TestDeployment.with { app in
            let browser = try await signedInBob(app)
            #expect(try await app.stores.accounts.tokens(for: Self.appleKey) != nil)
            let body = try app.sandbox.appleNotificationBody(for: event(.consentRevoked)).body
            #expect(try await notify(app, body).status == 200)
            #expect(try await app.stores.accounts.tokens(for: Self.appleKey) == nil)
            #expect(try await app.session(browser).status == 401)
            let replay = try await notify(app, body)
            #expect((try? JSONValue.parse(replay.body))?["applied"] == .bool(false))
        }
    }

    @Test func accountDeleteDisablesTheIdentityEndsSessionsAndRevokesAtApple() async throws {
        try await TestDeployment.with { app in
            let browser = try await signedInBob(app)
            let refresh = try #require(try await app.stores.accounts.tokens(for: Self.appleKey)?.refreshToken)
            let body = try app.sandbox.appleNotificationBody(for: event(.accountDelete)).body
            #expect(try await notify(app, body).status == 200)
            #expect(try await app.session(browser).status == 401)
            #expect(try await app.stores.accounts.identity(Self.appleKey)?.isDisabled == true)
            #expect(app.sandbox.revocations(for: .apple).map(\.token) == [refresh])
            // Idempotent: a replay revokes nothing more.
            _ = try await notify(app, body)
            #expect(app.sandbox.revocations(for: .apple).count == 1)
            // The dead Apple identity cannot sign in again.
            let again = try await app.signIn(TestBrowser(), provider: "apple", as: People.bob)
            #expect(errorCode(again) == "identity_disabled")
        }
    }

    @Test func theSandboxAdminEndpointDeliversToTheApp() async throws {
        try await TestDeployment.with { app in
            let browser = try await signedInBob(app)
            let request = HTTPClientRequest.form(
                url: app.sandbox.baseURL + "/_sandbox/apple/notify",
                fields: [
                    ("type", "account-delete"), ("sub", "bob-2"), ("client_id", "com.example.web"),
                    ("to", app.appURL + "/auth/apple/notifications"),
                ])
            let response = try await CurlHTTPClient().send(request)
            #expect(response.status == 200)
            #expect((try? JSONValue.parse(response.body))?["status"] == .integer(200))
            #expect(try await app.session(browser).status == 401)
            let listed = try await CurlHTTPClient().send(
                HTTPClientRequest(url: app.sandbox.baseURL + "/_sandbox/revocations"))
            let entries = try #require((try? JSONValue.parse(listed.body))?["revocations"]?.arrayValue)
            #expect(
                entries.contains { $0["provider"] == .string("apple") && $0["token_sha256"]?.stringValue?.count == 64 })
        }
    }

    @Test func refusesABadSignature() async throws {
        try await TestDeployment.with { app in
            _ = try await signedInBob(app)
            let jws = try app.sandbox.appleNotificationJWS(for: event(.accountDelete)).jws
            var parts = jws.split(separator: ".").map(String.init)
            var signature = try Base64URL.decode(parts[2])
            signature[10] ^= 0x01
            parts[2] = Base64URL.encode(signature)
            let body = JSONValue.object(["payload": .string(parts.joined(separator: "."))]).serialized()
            let response = try await notify(app, Array(body.utf8))
            #expect(response.status == 400)
            #expect(errorCode(response) == "invalid_notification")
            #expect(try await app.stores.accounts.identity(Self.appleKey)?.isDisabled == false)
        }
    }

    @Test func refusesAnotherAudience() async throws {
        try await TestDeployment.with { app in
            _ = try await signedInBob(app)
            let body = try app.sandbox.appleNotificationBody(for: event(.accountDelete, clientID: "com.other.app")).body
            let response = try await notify(app, body)
            #expect(response.status == 400)
            #expect(errorCode(response) == "invalid_notification")
            #expect(try await app.stores.accounts.identity(Self.appleKey)?.isDisabled == false)
        }
    }

    @Test func refusesAnExpiredNotification() async throws {
        try await TestDeployment.with { app in
            _ = try await signedInBob(app)
            let body = try app.sandbox.appleNotificationBody(for: event(.accountDelete)).body
            app.clock.advance(by: 3600)
            let response = try await notify(app, body)
            #expect(response.status == 400)
            #expect(errorCode(response) == "invalid_notification")
            #expect(try await app.stores.accounts.identity(Self.appleKey)?.isDisabled == false)
        }
    }

    @Test(
        "malformed bodies are refused",
        arguments: [
            "", "{}", "not json", "{\"payload\": 5}", "{\"payload\": \"a.b.c\"}", "{\"payload\": \"\"}",
        ])
    func refusesMalformedBodies(body: String) async throws {
        try await TestDeployment.with { app in
            let response = try await notify(app, Array(body.utf8))
            #expect(response.status == 400)
            #expect(errorCode(response) == "invalid_notification")
        }
    }

    @Test func refusesAnOversizedBody() async throws {
        try await TestDeployment.with { app in
            let body = "{\"payload\": \"" + String(repeating: "a", count: 70_000) + "\"}"
            let response = try await notify(app, Array(body.utf8))
            #expect(response.status == 400)
            #expect(errorCode(response) == "invalid_notification")
        }
    }

    @Test func anUnknownIdentityIsAcknowledgedWithoutChanges() async throws {
        try await TestDeployment.with { app in
            let body = try app.sandbox.appleNotificationBody(for: event(.consentRevoked)).body
            let response = try await notify(app, body)
            #expect(response.status == 200)
            #expect((try? JSONValue.parse(response.body))?["applied"] == .bool(false))
        }
    }
}
