import AuthFlow
import AuthFlowDeployment
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowProviders
import AuthFlowSandbox
import Foundation
import Testing

@testable import AuthFlowServer

/// A plugin written outside the package: Corp SSO posts `POST /auth/{name}/webhook/{subject}` with an
/// `X-Corp-Signature` header, hex HMAC-SHA256 of the body with the client secret; body `disable` or `enable`.
struct CorpWebhookPlugin: ProviderPlugin, ProviderEventHandling {
    var about: ProviderDescription {
        ProviderDescription(
            type: "corp",
            endpoints: ProviderEndpoints(
                authorization: "http://127.0.0.1:9/authorize", token: "http://127.0.0.1:9/token",
                userinfo: "http://127.0.0.1:9/me"))
    }
    func support(for capability: Capability, settings: ProviderSettings) -> CapabilitySupport {
        capability == .pkce ? .required : .unsupported(reason: "Corp SSO is plain OAuth 2.0")
    }
    var tokenEndpoint: any TokenEndpointStrategy { StandardTokenEndpoint(.clientSecretBasic) }
    var events: (any ProviderEventHandling)? { self }

    func eventEndpoints(for provider: ResolvedProvider) -> [ProviderEventEndpoint] {
        [ProviderEventEndpoint(path: "webhook/*", method: "POST", maximumBodyBytes: 64)]
    }

    func handleEvent(_ request: ProviderEventRequest, context: ProviderEventContext) async throws(ProviderEventError)
        -> ProviderEventOutcome
    {
        let secret = context.provider.settings.clientSecret?.value ?? ""
        let mac = Digest.hmacSHA256(key: Array(secret.utf8), message: request.http.body)
        let expected = mac.map { String(format: "%02x", $0) }.joined()
        guard let given = request.http.headers["X-Corp-Signature"], ConstantTime.equals(given, expected) else {
            throw ProviderEventError(code: "invalid_signature", "expected a valid X-Corp-Signature", status: 401)
        }
        let key = IdentityKey(provider: context.provider.name, subject: request.pathParameters[0])
        let disable = request.http.body == Array("disable".utf8)
        let actions: [ProviderEventAction] =
            disable ? [.account(.setDisabled(key, true)), .endSessions(key)] : [.account(.setDisabled(key, false))]
        return ProviderEventOutcome(idempotencyKey: "\(key.subject):\(expected)", actions: actions, summary: "webhook")
        { disposition in
            .json(JSONValue.object(["result": .string(disposition.rawValue)]).serialized())
        }
    }
}

@Suite("Event endpoints of a plugin written outside the package")
struct OutsidePluginEventTests {
    static let key = IdentityKey(provider: "corp", subject: "emp-42")
    static let secret = "corp-webhook-secret"

    static func settings() -> TestDeployment.Settings {
        var settings = TestDeployment.Settings()
        settings.providers = ["google"]
        settings.adapt = { configuration, _ in
            var registry = ProviderRegistry.standard
            registry.register(CorpWebhookPlugin())
            let corp = ProviderSettings(
                name: "corp", type: "corp", clientID: "corp-app", clientSecret: Secret(Self.secret),
                location: SourceLocation(fileName: "test.yaml", line: 1, column: 1, sourceLine: ""))
            return (
                Configuration(
                    server: configuration.server, store: configuration.store,
                    providers: configuration.providers + [corp]),
                registry
            )
        }
        return settings
    }

    func post(_ app: TestDeployment, _ body: String, subject: String = "emp-42", secret: String = Self.secret)
        async throws -> HTTPClientResponse
    {
        let mac = Digest.hmacSHA256(key: Array(secret.utf8), message: Array(body.utf8))
        return try await CurlHTTPClient().send(
            HTTPClientRequest(
                method: "POST", url: app.appURL + "/auth/corp/webhook/\(subject)",
                headers: ["X-Corp-Signature": mac.map { String(format: "%02x", $0) }.joined()], body: Array(body.utf8)))
    }

    /// Stores Corp user emp-42 with a live session, as a sign-in would have.
    func seed(_ app: TestDeployment) async throws -> String {
        _ = try await app.stores.accounts.createUser(
            UserID(rawValue: "u-corp"), identity: Self.key, profile: IdentityProfile(email: nil, emailVerified: false))
        let now = app.clock.now()
        try await app.stores.sessions.createSession(
            id: "corp-session-id-0123456789",
            record: SessionRecord(
                userID: UserID(rawValue: "u-corp"), provider: "corp", subject: "emp-42", createdAt: now,
                expiresAt: now.addingTimeInterval(3600)))
        return "corp-session-id-0123456789"
    }

    @Test func theServerRoutesTheDeclaredEndpointAndAppliesTheActionsOnce() async throws {
        try await TestDeployment.with(Self.settings()) { app in
            let session = try await seed(app)
            let first = try await post(app, "disable")
            #expect(first.status == 200)
            #expect((try? JSONValue.parse(first.body))?["result"] == .string("applied"))
            #expect(try await app.stores.accounts.identity(Self.key)?.isDisabled == true)
            #expect(try await app.stores.sessions.session(id: session) == nil)

            #expect(try await post(app, "enable").status == 200)
            let replay = try await post(app, "disable")
            #expect((try? JSONValue.parse(replay.body))?["result"] == .string("already_applied"))
            #expect(try await app.stores.accounts.identity(Self.key)?.isDisabled == false)

            let unknown = try await post(app, "enable", subject: "nobody")
            #expect((try? JSONValue.parse(unknown.body))?["result"] == .string("unknown_identity"))
        }
    }

    @Test func aForgedSignatureAnOversizedBodyAndAnotherMethodAreRefused() async throws {
        try await TestDeployment.with(Self.settings()) { app in
            let session = try await seed(app)
            let forged = try await post(app, "disable", secret: "guess")
            #expect(forged.status == 401)
            #expect(errorCode(forged) == "invalid_signature")
            let oversized = try await post(app, String(repeating: "x", count: 65))
            #expect(oversized.status == 400)
            #expect(errorCode(oversized) == "invalid_event")
            let get = try await CurlHTTPClient().send(
                HTTPClientRequest(method: "GET", url: app.appURL + "/auth/corp/webhook/emp-42"))
            #expect(get.status == 405)
            #expect(try await app.stores.accounts.identity(Self.key)?.isDisabled == false)
            #expect(try await app.stores.sessions.session(id: session) != nil)
        }
    }
}
