import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import Foundation
import Testing

/// Drives ``OAuthFlow`` through all 16 combinations of the four capabilities.
@Suite struct OAuthFlowCapabilityMatrixTests {
    @Test(arguments: 0..<16)
    func runsEveryCapabilityCombination(mask: Int) throws {
        let capabilities = TestProviders.capabilities(mask: mask)
        let provider = try TestProviders.resolve(capabilities)
        let pkce = capabilities["pkce"] == true
        let oidc = capabilities["oidc"] == true
        let jwt = capabilities["jwt_client_auth"] == true
        let formPost = capabilities["form_post"] == true
        #expect(provider.capabilities == Set(Capability.allCases.filter { capabilities[$0.rawValue] == true }))

        var harness = FlowHarness(provider)

        // Authorization URL.
        let redirect = try harness.begin()
        #expect(redirect.url.hasPrefix("https://idp.test/authorize?"))
        let query = Query.parameters(ofURL: redirect.url)
        #expect(query["response_type"] == "code")
        #expect(query["client_id"] == TestProviders.clientID)
        #expect(query["redirect_uri"] == "https://app.test/auth/test/callback")
        #expect(query["state"] == harness.secrets.state)
        #expect(query["scope"] == (oidc ? "openid profile email" : "profile email"))
        #expect(redirect.url.contains("scope=\(oidc ? "openid%20" : "")profile%20email"))
        #expect(query["nonce"] == (oidc ? harness.secrets.nonce : nil))
        #expect(query["code_challenge"] == (pkce ? PKCE.challenge(for: harness.secrets.pkceVerifier) : nil))
        #expect(query["code_challenge_method"] == (pkce ? "S256" : nil))
        #expect(query["response_mode"] == (formPost ? "form_post" : nil))

        // Flow record.
        #expect(redirect.record.provider == "test")
        #expect(redirect.record.nonce == (oidc ? harness.secrets.nonce : nil))
        #expect(redirect.record.pkceVerifier == (pkce ? harness.secrets.pkceVerifier : nil))
        #expect(redirect.record.returnTo == "/home")
        #expect(redirect.record.browserBindingDigest == OAuthFlow.bindingDigest(harness.binding))
        #expect(redirect.record.browserBindingDigest != harness.binding)
        #expect(redirect.ttl == 600)

        // Callback → token request.
        #expect(provider.callbackMethod == (formPost ? .post : .get))
        var (flow, spent) = harness.callback(record: redirect.record)
        guard case .exchangeCode(let exchange) = spent else {
            Issue.record("expected the code exchange, got \(spent)")
            return
        }
        let request = exchange.request
        #expect(request.method == "POST")
        #expect(request.url == "https://idp.test/token")
        #expect(request.headers["Content-Type"] == "application/x-www-form-urlencoded")
        #expect(request.headers["Authorization"] == nil)
        let form = Query.form(request.body)
        #expect(form["grant_type"] == "authorization_code")
        #expect(form["code"] == "auth-code-value")
        #expect(form["redirect_uri"] == "https://app.test/auth/test/callback")
        #expect(form["client_id"] == TestProviders.clientID)
        #expect(form["code_verifier"] == (pkce ? harness.secrets.pkceVerifier : nil))
        let secret = try #require(form["client_secret"])
        if jwt {
            #expect(provider.clientAuthentication == .es256ClientSecretJWT)
            let checks = ClaimChecks(issuers: ["TEAMID1234"], audiences: ["https://appleid.apple.com"])
            let verifier = JWTVerifier(allowedAlgorithms: [.es256], checks: checks)
            let claims = try verifier.verify(
                secret, keys: JWKSet(keys: [TestProviders.clientSecretKey.publicKey]), now: harness.now)
            #expect(claims.subject == TestProviders.clientID)
        } else {
            #expect(provider.clientAuthentication == .clientSecretPost)
            #expect(secret == TestProviders.clientSecret)
        }

        // Token response → identity source.
        harness.now += 1
        let idToken = oidc ? try harness.idp.idToken(nonce: harness.secrets.nonce, now: harness.now) : nil
        let tokens = flow.tokenResponseReceived(TestIdentityProvider.tokenResponse(idToken: idToken), now: harness.now)
        let action: OAuthFlow.IdentityAction
        if oidc {
            #expect(provider.identitySource == .idToken)
            guard case .verifyIDToken(let verification) = tokens else {
                Issue.record("expected an id_token verification, got \(tokens)")
                return
            }
            #expect(verification.idToken == idToken)
            action = flow.verify(verification, keys: harness.idp.keySet, now: harness.now)
        } else {
            #expect(provider.identitySource == .userinfo)
            guard case .fetchUserinfo(let userinfo) = tokens else {
                Issue.record("expected a userinfo call, got \(tokens)")
                return
            }
            #expect(userinfo.method == "GET")
            #expect(userinfo.url == "https://idp.test/userinfo")
            #expect(userinfo.headers["Authorization"] == "Bearer at-secret-value")
            harness.now += 1
            action = flow.userinfoResponseReceived(TestIdentityProvider.userinfo(), now: harness.now)
        }
        guard case .complete(let result) = action else {
            Issue.record("expected completion, got \(action)")
            return
        }
        #expect(result.identity.subject == TestIdentityProvider.subject)
        #expect(result.identity.source == (oidc ? .idToken : .userinfo))
        #expect(result.identity.email == "user@example.com")
        #expect(result.identity.emailVerified)
        #expect(result.returnTo == "/home")
        #expect(result.intent == .login)
        #expect(result.tokens.accessToken == "at-secret-value")
        #expect(result.tokens.idToken == idToken)
        let steps = result.trace.map(\.step)
        #expect(
            steps
                == (oidc
                    ? [.callback, .tokenExchange, .jwks, .idTokenVerification, .complete]
                    : [.callback, .tokenExchange, .userinfo, .complete]))
        #expect(provider.roundTrips == (oidc ? 1 : 2))
        #expect(result.trace.filter(\.providerRoundTrip).count == (oidc ? 2 : 2))
    }
}
