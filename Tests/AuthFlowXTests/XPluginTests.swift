import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowProviderTestSupport
import AuthFlowProviders
import AuthFlowX
import Foundation
import Testing

@Suite struct XPluginTests {
    @Test func authenticatesWithBasicAndRequiredPKCE() throws {
        let provider = try Fixtures.resolve(Fixtures.settings("x"))
        #expect(provider.capabilities == [.pkce])
        #expect(provider.clientAuthentication == .clientSecretBasic)
        #expect(provider.scopes == ["users.read", "tweet.read"])
        let (_, action, redirect) = Fixtures.exchange(provider)
        let url = try #require(redirect?.url)
        #expect(url.hasPrefix("https://x.com/i/oauth2/authorize?"))
        #expect(Fixtures.query(url)["code_challenge_method"] == "S256")
        guard case .exchangeCode(let exchange) = action else {
            Issue.record("expected the exchange, got \(action)")
            return
        }
        #expect(exchange.request.url == "https://api.x.com/2/oauth2/token")
        // base64("client-id:app-secret")
        #expect(exchange.request.headers["Authorization"] == "Basic Y2xpZW50LWlkOmFwcC1zZWNyZXQ=")
        let form = Fixtures.form(exchange.request.body)
        #expect(form["client_secret"] == nil)
        #expect(form["client_id"] == nil)
        #expect(form["code_verifier"] == Fixtures.secrets.pkceVerifier)
        #expect(form["grant_type"] == "authorization_code")
    }

    @Test func formEncodesBasicCredentialsFirst() throws {
        let settings = ProviderSettings(
            name: "x", type: "x", clientID: "a:b", clientSecret: Secret("p&s w"), location: Fixtures.location())
        let provider = try Fixtures.resolve(settings)
        let (_, action, _) = Fixtures.exchange(provider)
        guard case .exchangeCode(let exchange) = action else {
            Issue.record("expected the exchange")
            return
        }
        // RFC 6749 §2.3.1: "a%3Ab:p%26s+w" base64-encoded.
        #expect(exchange.request.headers["Authorization"] == "Basic YSUzQWI6cCUyNnMrdw==")
    }

    @Test func cannotDisablePKCEOrEnableOIDC() {
        #expect(
            Fixtures.issues(Fixtures.settings("x", capabilities: ["pkce": false])).map(\.message) == [
                "provider 'x' (type x) requires pkce; it cannot be disabled"
            ])
        #expect(
            Fixtures.issues(Fixtures.settings("x", capabilities: ["oidc": true])).map(\.message) == [
                "provider 'x' (type x) cannot enable oidc: X has no OpenID Connect: it issues no id_token and "
                    + "publishes no discovery or JWKS"
            ])
    }

    @Test func refusesScopesThatUsersMeCannotServe() {
        let found = Fixtures.issues(Fixtures.settings("x", scopes: ["users.read", "offline.access"]))
        #expect(
            found.map(\.message) == [
                "provider 'x' (type x): expected scopes to include tweet.read and users.read (X's /2/users/me needs "
                    + "both), found tweet.read missing"
            ])
    }

    @Test func takesTheIdentityFromDataID() throws {
        let provider = try Fixtures.resolve(Fixtures.settings("x"))
        var (flow, _, _) = Fixtures.exchange(provider)
        let action = flow.tokenResponseReceived(Fixtures.tokenResponse(idToken: nil), now: Fixtures.now)
        guard case .fetchUserinfo(let request) = action else {
            Issue.record("expected the users/me call, got \(action)")
            return
        }
        #expect(request.url == "https://api.x.com/2/users/me")
        #expect(request.headers["Authorization"] == "Bearer access-token-value")
        let done = flow.userinfoResponseReceived(
            Fixtures.json(["data": ["id": "2244994945", "name": "X Dev", "username": "XDevelopers"]]), now: Fixtures.now
        )
        guard case .complete(let result) = done else {
            Issue.record("expected completion, got \(done)")
            return
        }
        #expect(result.identity.subject == "2244994945")
        #expect(result.identity.name == "X Dev")
        #expect(result.identity.email == nil)
        #expect(!result.identity.emailVerified)
        var (again, _, _) = Fixtures.exchange(provider)
        _ = again.tokenResponseReceived(Fixtures.tokenResponse(idToken: nil), now: Fixtures.now)
        let missing = again.userinfoResponseReceived(Fixtures.json(["id": "2244994945"]), now: Fixtures.now)
        #expect(missing.failure?.code == .userinfoError)
    }
}
