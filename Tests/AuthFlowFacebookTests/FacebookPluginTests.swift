import AuthFlow
import AuthFlowFacebook
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowProviderTestSupport
import AuthFlowProviders
import Foundation
import Testing

@Suite struct FacebookPluginTests {
    @Test func computesAppSecretProofWithTheSecretAsKey() {
        // RFC-style known HMAC-SHA256 value: key "key", message "The quick brown fox jumps over the lazy dog".
        #expect(
            FacebookPlugin.appSecretProof(appSecret: "key", accessToken: "The quick brown fox jumps over the lazy dog")
                == "f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8")
        // Swapping key and message gives another value: the order matters.
        #expect(
            FacebookPlugin.appSecretProof(appSecret: "The quick brown fox jumps over the lazy dog", accessToken: "key")
                != "f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8")
    }

    @Test func exchangesTheCodeWithAGetRequest() throws {
        let provider = try Fixtures.resolve(Fixtures.settings("facebook"))
        #expect(provider.clientAuthentication == .clientSecretGet)
        #expect(provider.capabilities == [.pkce])
        #expect(provider.signInProtocol == .oauth2)
        let (_, action, redirect) = Fixtures.exchange(provider)
        #expect(redirect?.url.hasPrefix("https://www.facebook.com/v19.0/dialog/oauth?") == true)
        guard case .exchangeCode(let exchange) = action else {
            Issue.record("expected the exchange, got \(action)")
            return
        }
        #expect(exchange.request.method == "GET")
        #expect(exchange.request.body == nil)
        #expect(exchange.request.url.hasPrefix("https://graph.facebook.com/v19.0/oauth/access_token?"))
        let query = Fixtures.query(exchange.request.url)
        #expect(query["client_id"] == "client-id")
        #expect(query["client_secret"] == "app-secret")
        #expect(query["code"] == "the-code")
        #expect(query["redirect_uri"] == "https://app.example/auth/facebook/callback")
        #expect(query["code_verifier"] == Fixtures.secrets.pkceVerifier)
        #expect(query["grant_type"] == nil)
    }

    @Test func tradesAShortLivedTokenWithAGetRequest() throws {
        let provider = try Fixtures.resolve(Fixtures.settings("facebook"))
        let request = try #require(
            try provider.longLivedTokenRequest(accessToken: "EAAshort&x=1", now: Date(timeIntervalSince1970: 0)))
        #expect(request.method == "GET")
        #expect(request.body == nil)
        #expect(request.url.hasPrefix("https://graph.facebook.com/v19.0/oauth/access_token?"))
        let query = Fixtures.query(request.url)
        #expect(query["grant_type"] == "fb_exchange_token")
        #expect(query["fb_exchange_token"] == "EAAshort&x=1")
        #expect(query["client_id"] == "client-id")
        #expect(query["client_secret"] == "app-secret")
        #expect(query.count == 4)
        // Providers that refresh have no such exchange.
        for type in ["google", "x"] {
            #expect(
                try Fixtures.resolve(Fixtures.settings(type)).longLivedTokenRequest(accessToken: "t", now: Date())
                    == nil)
        }
    }

    @Test func readsTheGraphProfileWithAppSecretProof() throws {
        let provider = try Fixtures.resolve(Fixtures.settings("facebook"))
        var (flow, _, _) = Fixtures.exchange(provider)
        let action = flow.tokenResponseReceived(Fixtures.tokenResponse(idToken: nil), now: Fixtures.now)
        guard case .fetchUserinfo(let request) = action else {
            Issue.record("expected the Graph call, got \(action)")
            return
        }
        let proof = FacebookPlugin.appSecretProof(appSecret: "app-secret", accessToken: "access-token-value")
        #expect(request.url == "https://graph.facebook.com/v19.0/me?fields=id,name,email&appsecret_proof=\(proof)")
        #expect(request.headers["Authorization"] == "Bearer access-token-value")
        let done = flow.userinfoResponseReceived(
            Fixtures.json(["id": "10158", "name": "Ada", "email": "ada@example.com"]), now: Fixtures.now)
        guard case .complete(let result) = done else {
            Issue.record("expected completion, got \(done)")
            return
        }
        #expect(result.identity.subject == "10158")
        #expect(result.identity.name == "Ada")
        #expect(result.identity.email == "ada@example.com")
        #expect(!result.identity.emailVerified)
    }

    @Test func refusesAProfileWithoutID() throws {
        let provider = try Fixtures.resolve(Fixtures.settings("facebook"))
        var (flow, _, _) = Fixtures.exchange(provider)
        _ = flow.tokenResponseReceived(Fixtures.tokenResponse(idToken: nil), now: Fixtures.now)
        let action = flow.userinfoResponseReceived(Fixtures.json(["id": 10158, "name": "Ada"]), now: Fixtures.now)
        #expect(action.failure?.code == .userinfoError)
    }

    @Test func refusesOIDCQuotingTheReason() {
        let found = Fixtures.issues(Fixtures.settings("facebook", capabilities: ["oidc": true]))
        #expect(found.count == 1)
        #expect(
            found.first?.message.hasPrefix("provider 'facebook' (type facebook) cannot enable oidc: Facebook's") == true
        )
    }
}

/// `FacebookSignedRequest` on its own: each refusal names the part refused.
@Suite struct FacebookSignedRequestTests {
    static let secret = "app-secret"
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func signed(_ fields: [String: JSONValue], secret: String = secret) -> String {
        let payload = Base64URL.encode(Array(JSONValue.object(fields).serialized().utf8))
        return Base64URL.encode(Digest.hmacSHA256(key: Array(secret.utf8), message: Array(payload.utf8))) + "."
            + payload
    }

    static func fields(age: Double = 0) -> [String: JSONValue] {
        [
            "algorithm": .string("HMAC-SHA256"), "issued_at": .integer(Int64(now.timeIntervalSince1970 - age)),
            "user_id": .string("1001"),
        ]
    }

    static func reason(_ text: String) -> FacebookSignedRequest.Failure? {
        do throws(FacebookSignedRequest.Failure) {
            _ = try FacebookSignedRequest(text, appSecret: secret, now: now)
            return nil
        } catch {
            return error
        }
    }

    @Test func aFreshRequestIsAcceptedUpToItsMaximumAge() throws {
        for age in [0, 60, FacebookSignedRequest.maximumAge] {
            let request = try FacebookSignedRequest(
                Self.signed(Self.fields(age: age)), appSecret: Self.secret, now: Self.now)
            #expect(request.userID == "1001")
        }
        #expect(FacebookSignedRequest.maximumAge == 600)
    }

    @Test func anOlderRequestIsRefusedNamingIssuedAt() {
        let failure = Self.reason(Self.signed(Self.fields(age: FacebookSignedRequest.maximumAge + 1)))
        #expect(failure?.reason == .issuedAt)
        #expect(failure?.message.contains("issued_at within the last 600 s, found one 601 s old") == true)
    }

    @Test(arguments: ["code", "oauth_token"])
    func aLoginPayloadIsRefused(_ field: String) {
        var fields = Self.fields()
        fields[field] = .string("value")
        let failure = Self.reason(Self.signed(fields))
        #expect(failure?.reason == .loginPayload)
        #expect(failure?.message.contains(field) == true)
        #expect(failure?.message.contains("value") == false)
    }

    @Test func otherRefusalsNameTheirPart() {
        #expect(Self.reason(Self.signed(Self.fields(), secret: "other"))?.reason == .signature)
        #expect(Self.reason("a.b.c")?.reason == .malformed)
        var algorithm = Self.fields()
        algorithm["algorithm"] = .string("HMAC-SHA1")
        #expect(Self.reason(Self.signed(algorithm))?.reason == .algorithm)
        var user = Self.fields()
        user["user_id"] = nil
        #expect(Self.reason(Self.signed(user))?.reason == .userID)
        #expect(Self.reason(Self.signed(Self.fields(age: -3600)))?.reason == .issuedAt)
    }
}
