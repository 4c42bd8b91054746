import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowSandbox
import Foundation
import Synchronization
import Testing

/// An HTTP client that records what it is asked to send and answers with a fixed status.
final class RecordingHTTPClient: HTTPClient {
    let status: Int
    let requests = Mutex<[HTTPClientRequest]>([])

    init(status: Int = 200) { self.status = status }

    func send(_ request: HTTPClientRequest) async throws -> HTTPClientResponse {
        requests.withLock { $0.append(request) }
        return HTTPClientResponse(status: status, headers: [:], body: [])
    }

    var sent: [HTTPClientRequest] { requests.withLock { $0 } }
}

@Suite("Apple server-to-server notifications")
struct AppleNotificationTests {
    typealias H = SandboxHarness

    func verifiedClaims(_ harness: SandboxHarness, _ jws: String) async throws -> JWTClaims {
        try await harness.verifyIDToken(jws, provider: .apple, audience: H.appleClientID)
    }

    @Test(arguments: Transport.available) func notificationIsSignedWithTheAppleKeysAndCarriesEventsAsAString(
        transport: Transport
    ) async throws {
        let harness = try H(transport: transport)
        let event = AppleNotificationEvent(
            kind: .emailDisabled, subject: "001234.abc.0001", clientID: H.appleClientID,
            email: "relay@privaterelay.appleid.com", isPrivateEmail: true)
        let signed = try harness.sandbox.appleNotificationJWS(for: event)
        let claims = try await verifiedClaims(harness, signed.jws)
        #expect(claims.issuer == harness.sandbox.baseURL + "/apple")
        #expect(claims.audience == [H.appleClientID])
        #expect(claims.string("jti") == signed.jti)
        #expect(try #require(claims.expiresAt) > Int64(harness.clock.now().timeIntervalSince1970))
        let eventsText = try #require(claims["events"]?.stringValue, "events must be a JSON string")
        let events = try JSONValue.parse(Array(eventsText.utf8))
        #expect(events["type"] == .string("email-disabled"))
        #expect(events["sub"] == .string("001234.abc.0001"))
        #expect(events["email"] == .string("relay@privaterelay.appleid.com"))
        #expect(events["is_private_email"] == .string("true"))
        #expect(events["event_time"] == .integer(1_750_000_000_000))
    }

    @Test(arguments: Transport.available, AppleNotificationEvent.Kind.allCases)
    func eventTypesUseApplesSpelling(transport: Transport, kind: AppleNotificationEvent.Kind) async throws {
        let harness = try H(transport: transport)
        let signed = try harness.sandbox.appleNotificationJWS(
            for: AppleNotificationEvent(kind: kind, subject: "s", clientID: H.appleClientID))
        let claims = try await verifiedClaims(harness, signed.jws)
        let events = try JSONValue.parse(Array(try #require(claims["events"]?.stringValue).utf8))
        #expect(events["type"] == .string(kind.rawValue))
        #expect(events["email"] == nil)
        #expect(["email-disabled", "email-enabled", "consent-revoked", "account-delete"].contains(kind.rawValue))
    }

    @Test(arguments: Transport.available) func sendPostsAPayloadObject(transport: Transport) async throws {
        let recorder = RecordingHTTPClient(status: 200)
        let harness = try H(transport: transport, notificationClient: recorder)
        let delivery = try await harness.sandbox.sendAppleNotification(
            AppleNotificationEvent(kind: .consentRevoked, subject: "s1", clientID: H.appleClientID),
            to: "http://127.0.0.1:9/auth/apple/notifications")
        #expect(delivery.status == 200)
        let request = try #require(recorder.sent.first)
        #expect(request.method == "POST")
        #expect(request.url == "http://127.0.0.1:9/auth/apple/notifications")
        #expect(request.headers["Content-Type"] == "application/json")
        let body = try JSONValue.parse(try #require(request.body))
        let payload = try #require(body["payload"]?.stringValue)
        let claims = try await verifiedClaims(harness, payload)
        #expect(claims.string("jti") == delivery.jti)
    }

    @Test(arguments: Transport.available) func consentRevokedMakesTheNextSignInAFirstConsent(transport: Transport)
        async throws
    {
        let recorder = RecordingHTTPClient()
        let harness = try H(transport: transport, notificationClient: recorder)
        let (code, fields) = try await harness.code(.apple)
        #expect(fields["user"] != nil)
        let refreshToken = try #require(
            try await harness.exchange(.apple, code: code).json()["refresh_token"]?.stringValue)
        #expect(
            H.callbackFields(try await harness.authorize(.apple, query: H.authorizationQuery(.apple)))["user"] == nil)

        _ = try await harness.sandbox.sendAppleNotification(
            AppleNotificationEvent(
                kind: .consentRevoked, subject: "001234.8f14e45fceea167a5a36dedd4bea2543.1021",
                clientID: H.appleClientID),
            to: "http://127.0.0.1:9/n")
        #expect(
            H.callbackFields(try await harness.authorize(.apple, query: H.authorizationQuery(.apple)))["user"] != nil)
        let refresh = try await harness.post(
            H.tokenPath(.apple),
            form: [
                ("grant_type", "refresh_token"), ("refresh_token", refreshToken), ("client_id", H.appleClientID),
                ("client_secret", try harness.appleClientSecret()),
            ])
        #expect(refresh.oauthError == "invalid_grant")
    }

    @Test(arguments: Transport.available) func refusesANonHTTPURL(transport: Transport) async throws {
        let harness = try H(transport: transport, notificationClient: RecordingHTTPClient())
        await #expect(throws: SandboxError.self) {
            try await harness.sandbox.sendAppleNotification(
                AppleNotificationEvent(kind: .accountDelete, subject: "s", clientID: H.appleClientID),
                to: "file:///etc/passwd")
        }
    }

    @Test(arguments: Transport.available) func adminEndpointSendsForLoopbackCallersOnly(transport: Transport)
        async throws
    {
        let recorder = RecordingHTTPClient(status: 204)
        let harness = try H(transport: transport, notificationClient: recorder)
        let form: [(String, String)] = [
            ("type", "account-delete"), ("sub", "s9"), ("client_id", H.appleClientID), ("to", "http://127.0.0.1:9/n"),
        ]
        let reply = try await harness.post("/_sandbox/apple/notify", form: form)
        #expect(reply.status == 200, "\(reply.text)")
        #expect(try reply.json()["status"] == .integer(204))
        #expect(recorder.sent.count == 1)

        let remote = await harness.sandbox.handle(
            HTTPServerRequest(
                method: "POST", path: "/_sandbox/apple/notify",
                headers: ["Content-Type": "application/x-www-form-urlencoded"],
                body: Array(FormURLEncoding.encode(form).utf8), remoteAddress: "192.0.2.7"))
        #expect(remote.status == 404)

        let badType = try await harness.post(
            "/_sandbox/apple/notify", form: [("type", "account-deleted")] + form.dropFirst())
        #expect(badType.status == 400)
        let unknownClient = try await harness.post(
            "/_sandbox/apple/notify", form: form.map { $0.0 == "client_id" ? ("client_id", "nope") : $0 })
        #expect(unknownClient.status == 400)
        #expect(recorder.sent.count == 1)
    }
}
