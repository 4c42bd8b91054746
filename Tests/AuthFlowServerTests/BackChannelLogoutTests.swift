import AuthFlow
import AuthFlowBrowserTestSupport
import AuthFlowDeployment
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowOIDC
import AuthFlowProviders
import AuthFlowSandbox
import Foundation
import Testing

@testable import AuthFlowServer

@Suite("OpenID Connect back-channel logout")
struct BackChannelLogoutTests {
    static let clientID = "123.apps.googleusercontent.com"

    /// The sandbox Google as a generic `type: oidc` issuer whose discovery advertises back-channel logout.
    static func settings(backchannel: Bool = true) -> TestDeployment.Settings {
        GenericOIDCSettings.settings(["backchannel_logout_supported": .bool(backchannel)])
    }

    func logoutToken(_ app: TestDeployment, key: JWK? = nil, _ change: (inout [String: JSONValue]) -> Void = { _ in })
        throws -> String
    {
        let now = Int64(app.clock.now().timeIntervalSince1970)
        var claims: [String: JSONValue] = [
            "iss": .string(try #require(app.sandbox.issuer(for: .google))), "aud": .string(Self.clientID),
            "iat": .integer(now), "exp": .integer(now + 120), "jti": .string(UUID().uuidString),
            "sub": .string("alice-1"),
            "events": .object([OIDCPlugin.backchannelLogoutEvent: .object([:])]),
        ]
        change(&claims)
        return try JWS.sign(
            payload: Array(JSONValue.object(claims).serialized().utf8),
            key: try #require(key ?? SharedKeys.signing[.google]),
            algorithm: .rs256)
    }

    func post(_ app: TestDeployment, _ token: String) async throws -> HTTPClientResponse {
        try await CurlHTTPClient().send(
            .form(url: app.appURL + "/auth/google/backchannel-logout", fields: [("logout_token", token)]))
    }

    func signedInAlice(_ app: TestDeployment) async throws -> TestBrowser {
        let browser = TestBrowser()
        let answer = try await app.signIn(browser, provider: "google", as: People.alice)
        #expect(answer.status == 302, "\(answer.text)")
        #expect(try await app.session(browser).status == 200)
        return browser
    }

    @Test func aLogoutTokenWithSubEndsTheSessionsOfThatIdentity() async throws {
        try await TestDeployment.with(Self.settings()) { app in
            let browser = try await signedInAlice(app)
            let response = try await post(app, try logoutToken(app))
            #expect(response.status == 200)
            #expect(response.headers["Cache-Control"] == "no-store")
            #expect(try await app.session(browser).status == 401)
        }
    }

    @Test func aLogoutTokenWithAnotherSidLeavesSessionsOfOtherProviderSessions() async throws {
        try await TestDeployment.with(Self.settings()) { app in
            let browser = try await signedInAlice(app)
            let bySid = try logoutToken(app) { $0["sid"] = .string("another-provider-session") }
            #expect(try await post(app, bySid).status == 200)
            #expect(try await app.session(browser).status == 200)
            let sidOnly = try logoutToken(app) {
                $0["sub"] = nil
                $0["sid"] = .string("another-provider-session")
            }
            #expect(try await post(app, sidOnly).status == 200)
            #expect(try await app.session(browser).status == 200)
        }
    }

    @Test(arguments: [
        "nonce", "replay", "signature", "aud", "iss", "expired", "no-events", "no-sub-or-sid", "no-jti", "foreign-key",
    ])
    func forgedLogoutTokensAreRefusedWithNothingApplied(_ forgery: String) async throws {
        try await TestDeployment.with(Self.settings()) { app in
            let browser = try await signedInAlice(app)
            var token: String
            switch forgery {
            case "nonce": token = try logoutToken(app) { $0["nonce"] = .string("n-0S6_WzA2Mj") }
            case "replay":
                token = try logoutToken(app) { $0["sub"] = .string("someone-else") }
                #expect(try await post(app, token).status == 200)
            case "signature":
                let parts = try logoutToken(app).split(separator: ".").map(String.init)
                let other = try logoutToken(app) { $0["sub"] = .string("alice-2") }.split(separator: ".")
                token = [parts[0], String(other[1]), parts[2]].joined(separator: ".")
            case "aud": token = try logoutToken(app) { $0["aud"] = .string("another-client") }
            case "iss": token = try logoutToken(app) { $0["iss"] = .string("https://issuer.example.com") }
            case "expired":
                token = try logoutToken(app) {
                    $0["iat"] = .integer(Int64(app.clock.now().timeIntervalSince1970) - 7200)
                    $0["exp"] = .integer(Int64(app.clock.now().timeIntervalSince1970) - 3600)
                }
            case "no-events": token = try logoutToken(app) { $0["events"] = .object(["other": .object([:])]) }
            case "no-sub-or-sid": token = try logoutToken(app) { $0["sub"] = nil }
            case "no-jti": token = try logoutToken(app) { $0["jti"] = nil }
            default: token = try logoutToken(app, key: try JWK.generateRSA(bits: 2048, keyID: "test-google"))
            }
            if forgery == "replay" {
                // The same jti again: refused.
                let response = try await post(app, token)
                #expect(response.status == 400)
            }
            let response = try await post(app, token)
            #expect(response.status == 400, "\(forgery)")
            #expect(response.headers["Cache-Control"] == "no-store")
            #expect((try? JSONValue.parse(response.body))?["error"]?.stringValue == "invalid_request")
            #expect(try await app.session(browser).status == 200)
        }
    }

    @Test func noEndpointWhenDiscoveryDoesNotAdvertiseBackChannelLogout() async throws {
        try await TestDeployment.with(Self.settings(backchannel: false)) { app in
            let response = try await post(app, try logoutToken(app))
            #expect(response.status == 404)
        }
    }
}
