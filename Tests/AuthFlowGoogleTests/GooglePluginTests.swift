import AuthFlow
import AuthFlowGoogle
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowProviderTestSupport
import AuthFlowProviders
import Foundation
import Testing

@Suite struct GooglePluginTests {
    func run(issuer: String) throws -> OAuthFlow.IdentityAction {
        let provider = try Fixtures.resolve(Fixtures.settings("google"))
        var (flow, _, _) = Fixtures.exchange(provider)
        let t = Int64(Fixtures.now.timeIntervalSince1970)
        let token = try Fixtures.idToken([
            "iss": .string(issuer), "sub": "1098", "aud": "client-id", "exp": .integer(t + 300), "iat": .integer(t),
            "nonce": .string(Fixtures.secrets.nonce), "email": "a@gmail.com", "email_verified": true, "name": "A",
        ])
        return flow.tokensReceived(Fixtures.tokenResponse(idToken: token))
    }

    @Test func defaultsToOIDCWithPKCE() throws {
        let provider = try Fixtures.resolve(Fixtures.settings("google"))
        #expect(provider.capabilities == [.oidc, .pkce])
        #expect(provider.scopes == ["openid", "email", "profile"])
        #expect(provider.clientAuthentication == .clientSecretPost)
        #expect(provider.identitySource == .idToken)
        #expect(provider.roundTrips == 1)
        #expect(provider.callbackMethod == .get)
        let (_, action, redirect) = Fixtures.exchange(provider)
        #expect(Fixtures.query(redirect?.url ?? "")["code_challenge_method"] == "S256")
        guard case .exchangeCode(let exchange) = action else {
            Issue.record("expected the exchange")
            return
        }
        let form = Fixtures.form(exchange.request.body)
        #expect(form["client_secret"] == "app-secret")
        #expect(form["code_verifier"] == Fixtures.secrets.pkceVerifier)
    }

    @Test func acceptsBothIssuerSpellings() throws {
        for issuer in ["https://accounts.google.com", "accounts.google.com"] {
            guard case .complete(let result) = try run(issuer: issuer) else {
                Issue.record("expected \(issuer) to be accepted")
                continue
            }
            #expect(result.identity.subject == "1098")
            #expect(result.identity.emailVerified)
        }
        for issuer in ["http://accounts.google.com", "https://accounts.google.com/", "https://evil.test"] {
            #expect(try run(issuer: issuer).failure?.joseCode == .issuerMismatch)
        }
    }

    @Test func acceptsOnlyTheConfiguredIssuerWhenOverridden() {
        let plugin = GooglePlugin()
        #expect(plugin.acceptedIssuers(for: "https://corp.example") == ["https://corp.example"])
    }

    @Test func plainOAuth2CallsUserinfoWithTheBearerToken() throws {
        let provider = try Fixtures.resolve(Fixtures.settings("google", capabilities: ["oidc": false, "pkce": false]))
        #expect(provider.signInProtocol == .oauth2)
        #expect(provider.scopes == ["email", "profile"])
        #expect(provider.roundTrips == 2)
        var (flow, _, redirect) = Fixtures.exchange(provider)
        #expect(Fixtures.query(redirect?.url ?? "")["nonce"] == nil)
        let action = flow.tokenResponseReceived(Fixtures.tokenResponse(idToken: nil), now: Fixtures.now)
        guard case .fetchUserinfo(let request) = action else {
            Issue.record("expected userinfo, got \(action)")
            return
        }
        #expect(request.url == "https://openidconnect.googleapis.com/v1/userinfo")
        #expect(request.headers["Authorization"] == "Bearer access-token-value")
        let done = flow.userinfoResponseReceived(
            Fixtures.json(["sub": "1098", "email": "a@gmail.com", "email_verified": true]), now: Fixtures.now)
        guard case .complete(let result) = done else {
            Issue.record("expected completion, got \(done)")
            return
        }
        #expect(result.identity.source == .userinfo)
    }

    @Test func refusesFormPostAndJWTClientAuth() {
        let found = Fixtures.issues(
            Fixtures.settings("google", capabilities: ["form_post": true, "jwt_client_auth": true]))
        #expect(found.map(\.code.rawValue) == ["unsupported_capability", "unsupported_capability"])
    }

    @Test func requiresAClientSecret() {
        let settings = ProviderSettings(name: "google", type: "google", clientID: "c", location: Fixtures.location())
        #expect(
            Fixtures.issues(settings).map(\.message) == [
                "provider 'google' (type google) requires 'client_secret' (or 'client_secret_file')"
            ])
    }
}
