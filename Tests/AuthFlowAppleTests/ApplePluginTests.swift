import AuthFlow
import AuthFlowApple
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowProviderTestSupport
import AuthFlowProviders
import Foundation
import Testing

@Suite struct ApplePluginTests {
    func claims(_ changes: [String: JSONValue?] = [:]) -> [String: JSONValue] {
        let t = Int64(Fixtures.now.timeIntervalSince1970)
        var claims: [String: JSONValue] = [
            "iss": "https://appleid.apple.com", "sub": "000544.abc.1321", "aud": "com.example.web",
            "exp": .integer(t + 300), "iat": .integer(t), "nonce": .string(Fixtures.secrets.nonce),
            "email": "relay@privaterelay.appleid.com", "email_verified": "true", "is_private_email": "true",
        ]
        for (name, value) in changes { claims[name] = value }
        return claims
    }

    /// Runs Apple's whole flow with `claims` in the id_token.
    func signIn(_ claims: [String: JSONValue], extra: [(String, String)] = []) throws -> OAuthFlow.IdentityAction {
        let provider = try Fixtures.resolve(try Fixtures.apple())
        var (flow, action, _) = Fixtures.exchange(provider, extra: extra)
        if case .fail(let error) = action { return .fail(error) }
        return flow.tokensReceived(Fixtures.tokenResponse(idToken: try Fixtures.idToken(claims)))
    }

    @Test func resolvesTheDocumentedShape() throws {
        let provider = try Fixtures.resolve(try Fixtures.apple(audiences: ["com.example.ios"]))
        #expect(provider.capabilities == [.oidc, .jwtClientAuth, .formPost])
        #expect(provider.clientAuthentication == .es256ClientSecretJWT)
        #expect(provider.callbackMethod == .post)
        #expect(provider.identitySource == .idToken)
        #expect(provider.roundTrips == 1)
        #expect(provider.scopes == ["openid", "name", "email"])
        #expect(provider.acceptedIssuers == ["https://appleid.apple.com"])
        #expect(provider.audiences == ["com.example.web", "com.example.ios"])
        #expect(provider.endpoints.jwks == "https://appleid.apple.com/auth/keys")
        #expect(provider.endpoints.userinfo == nil)
        #expect(provider.idTokenAlgorithms == [.rs256])
    }

    @Test func refusesPKCEQuotingTheReason() throws {
        let found = Fixtures.issues(try Fixtures.apple(capabilities: ["pkce": true]))
        #expect(
            found.map(\.message) == [
                "provider 'apple' (type apple) cannot enable pkce: Apple's REST API documents no code_challenge parameter"
            ])
    }

    @Test func requiresFormPostOnlyWhenNameOrEmailIsRequested() throws {
        let found = Fixtures.issues(try Fixtures.apple(capabilities: ["form_post": false]))
        #expect(found.map(\.code.rawValue) == ["required_capability"])
        let withoutName = try Fixtures.resolve(try Fixtures.apple(scopes: [], capabilities: ["form_post": false]))
        #expect(withoutName.callbackMethod == .get)
        #expect(withoutName.scopes == ["openid"])
        let emailOnly = Fixtures.issues(try Fixtures.apple(scopes: ["email"], capabilities: ["form_post": false]))
        #expect(emailOnly.count == 1)
    }

    @Test func requiresTeamKeyAndPrivateKey() {
        let bare = ProviderSettings(
            name: "apple", type: "apple", clientID: "com.example.web", location: Fixtures.location(4, 3))
        #expect(
            Fixtures.issues(bare).map(\.message) == [
                "provider 'apple' (type apple) requires 'team_id'",
                "provider 'apple' (type apple) requires 'key_id'",
                "provider 'apple' (type apple) requires 'private_key_file'",
            ])
    }

    @Test func refusesAPrivateKeyThatIsNotP256() throws {
        let rsa = try JWK.generateRSA(keyID: "r")
        for pem in ["not a key", try rsa.pkcs8PEM()] {
            let settings = ProviderSettings(
                name: "apple", type: "apple", clientID: "c", teamID: "T", keyID: "K", privateKey: Secret(pem),
                location: Fixtures.location(), keyLocations: ["private_key_file": Fixtures.location(9, 23)])
            let found = Fixtures.issues(settings)
            #expect(found.count == 1)
            #expect(found.first?.code.rawValue == "invalid_value")
            #expect(found.first?.location == Fixtures.location(9, 23))
            #expect(found.first?.message.contains("BEGIN") == false)
        }
    }

    @Test func authorizesWithFormPostNonceAndNoChallenge() throws {
        let provider = try Fixtures.resolve(try Fixtures.apple())
        let (_, _, redirect) = Fixtures.exchange(provider)
        let url = try #require(redirect?.url)
        #expect(url.hasPrefix("https://appleid.apple.com/auth/authorize?"))
        #expect(url.contains("scope=openid%20name%20email"))
        let query = Fixtures.query(url)
        #expect(query["response_mode"] == "form_post")
        #expect(query["nonce"] == Fixtures.secrets.nonce)
        #expect(query["code_challenge"] == nil)
        #expect(redirect?.record.pkceVerifier == nil)
    }

    @Test func sendsAFreshES256ClientSecret() throws {
        let provider = try Fixtures.resolve(try Fixtures.apple())
        let (_, action, _) = Fixtures.exchange(provider)
        guard case .exchangeCode(let exchange) = action else {
            Issue.record("expected the exchange, got \(action)")
            return
        }
        #expect(exchange.request.method == "POST")
        #expect(exchange.request.url == "https://appleid.apple.com/auth/token")
        let form = Fixtures.form(exchange.request.body)
        #expect(form["client_id"] == "com.example.web")
        #expect(form["grant_type"] == "authorization_code")
        #expect(form["redirect_uri"] == "https://app.example/auth/apple/callback")
        #expect(form["code_verifier"] == nil)
        let secret = try #require(form["client_secret"])
        let verifier = JWTVerifier(
            allowedAlgorithms: [.es256],
            checks: ClaimChecks(issuers: ["ABCDE12345"], audiences: ["https://appleid.apple.com"]))
        let claims = try verifier.verify(
            secret, keys: JWKSet(keys: [Fixtures.appleKey.publicKey]), now: Fixtures.now)
        #expect(claims.subject == "com.example.web")
        #expect(claims.expiresAt == Int64(Fixtures.now.timeIntervalSince1970) + 300)
        #expect(try JWSVerifier.header(of: secret).keyID == "KEY1234567")
    }

    @Test func acceptsBooleanStrings() throws {
        for value: JSONValue in [true, "true"] {
            guard case .complete(let result) = try signIn(claims(["email_verified": value])) else {
                Issue.record("expected completion for email_verified \(value)")
                continue
            }
            #expect(result.identity.emailVerified)
            #expect(result.identity.email == "relay@privaterelay.appleid.com")
            #expect(result.identity.name == nil)
            #expect(IdentityClaims.flag(result.identity.rawClaims["is_private_email"]) == true)
        }
        guard case .complete(let result) = try signIn(claims(["email_verified": "false"])) else {
            Issue.record("expected completion")
            return
        }
        #expect(!result.identity.emailVerified)
    }

    @Test func refusesAMissingNonceWhateverNonceSupportedSays() throws {
        for supported: JSONValue? in [nil, true, "true", false, "false"] {
            let action = try signIn(claims(["nonce": nil, "nonce_supported": supported]))
            #expect(action.failure?.code == .idTokenInvalid, "nonce_supported \(String(describing: supported))")
            #expect(action.failure?.joseCode == .missingClaim)
            #expect(action.failure?.claim == "nonce")
        }
    }

    @Test func checksAzpEvenWithASingleAudience() throws {
        #expect(try signIn(claims(["azp": "com.attacker.app"])).failure?.joseCode == .authorizedPartyMismatch)
        guard case .complete = try signIn(claims(["azp": "com.example.web"])) else {
            Issue.record("expected completion when azp is this client")
            return
        }
    }

    @Test func refusesAWrongNonceEitherWay() throws {
        for supported: JSONValue? in [nil, true, "false"] {
            let action = try signIn(claims(["nonce": "replayed", "nonce_supported": supported]))
            #expect(action.failure?.joseCode == .nonceMismatch)
        }
    }

    @Test func refusesAnotherIssuerAndExtraAudienceOnlyWhenConfigured() throws {
        #expect(try signIn(claims(["iss": "https://accounts.google.com"])).failure?.joseCode == .issuerMismatch)
        #expect(try signIn(claims(["aud": "com.example.ios"])).failure?.joseCode == .audienceMismatch)
    }

    @Test func readsTheFirstLoginNameButNeverItsEmail() throws {
        let user = #"{"name":{"firstName":"Ada","lastName":"Lovelace"},"email":"forged@evil.test"}"#
        guard case .complete(let result) = try signIn(claims(), extra: [("user", user)]) else {
            Issue.record("expected completion")
            return
        }
        let profile = try #require(result.unverifiedProfile)
        #expect(profile.displayName == "Ada Lovelace")
        #expect(result.identity.email == "relay@privaterelay.appleid.com")
        #expect(!String(describing: profile).contains("forged"))
    }

    @Test func refusesMalformedOrOversizedUserFields() throws {
        let provider = try Fixtures.resolve(try Fixtures.apple())
        let cases = [
            "not json", #"{"name":"Ada"}"#, "[]", #"{"name":{"firstName":7}}"#,
            "{\"name\":{\"firstName\":\"Ada\u{FFFD}\"}}",
            #"{"name":{"firstName":""# + String(repeating: "x", count: 9000) + #""}}"#,
        ]
        for text in cases {
            let (_, action, _) = Fixtures.exchange(provider, extra: [("user", text)])
            #expect(action.failure?.code == .invalidUserField, "\(text.prefix(40))")
            #expect(action.failure?.statusHint == 400)
        }
        let (_, twice, _) = Fixtures.exchange(provider, extra: [("user", "{}"), ("user", "{}")])
        #expect(twice.failure?.code == .invalidUserField)
    }

    @Test func aUserFieldWithoutANameGivesNoProfile() throws {
        let provider = try Fixtures.resolve(try Fixtures.apple())
        for text in [#"{"email":"a@b.c"}"#, #"{"name":{"firstName":"","lastName":null}}"#] {
            let (_, action, _) = Fixtures.exchange(provider, extra: [("user", text)])
            guard case .exchangeCode(let exchange) = action else {
                Issue.record("a user field without a name must not stop the sign-in, got \(action)")
                continue
            }
            #expect(exchange.unverifiedProfile == nil)
        }
    }

    @Test func refusesAGetCallback() throws {
        let provider = try Fixtures.resolve(try Fixtures.apple())
        var flow = OAuthFlow(provider: provider)
        var starter = OAuthFlow(provider: provider)
        let redirect = try starter.start(
            returnTo: nil, intent: .login, browserBinding: Fixtures.binding, secrets: Fixtures.secrets,
            now: Fixtures.now)
        let action = flow.callbackReceived(
            method: .get, parameters: CallbackParameters([("code", "c"), ("state", Fixtures.secrets.state)]),
            flowRecord: redirect.record, now: Fixtures.now)
        #expect(action.failure?.code == .wrongCallbackMethod)
    }

    @Test func revokesWithTheClientSecretJWT() throws {
        let provider = try Fixtures.resolve(try Fixtures.apple())
        let request = try #require(
            try provider.revocationRequest(token: "refresh-token", tokenTypeHint: "refresh_token", now: Fixtures.now))
        #expect(request.url == "https://appleid.apple.com/auth/revoke")
        let form = Fixtures.form(request.body)
        #expect(form["token"] == "refresh-token")
        #expect(form["token_type_hint"] == "refresh_token")
        #expect(form["client_id"] == "com.example.web")
        #expect(form["client_secret"]?.split(separator: ".").count == 3)
    }
}
