import AuthFlow
import AuthFlowJOSE
import Foundation
import Testing

/// Every id_token check, each with a token that breaks exactly that check; the flow's answers to the key-set
/// cache's outcome.
@Suite struct OAuthFlowIDTokenTests {
    let harness: FlowHarness
    var idp: TestIdentityProvider { harness.idp }
    var nonce: String { harness.secrets.nonce }
    var now: Date { harness.now }

    init() throws {
        harness = FlowHarness(try TestProviders.resolve(["oidc": true], audiences: ["com.example.ios"]))
    }

    func verify(_ token: String, keys: JWKSet? = nil) throws -> (OAuthFlow, OAuthFlow.IdentityAction) {
        var (flow, verification) = try harness.untilKeys(idToken: token)
        let action = flow.verify(verification, keys: keys ?? idp.keySet, source: .cached, now: now)
        return (flow, action)
    }

    func expectRefusal(
        _ token: String, _ code: JOSEError.Code, sourceLocation: Testing.SourceLocation = #_sourceLocation
    )
        throws
    {
        let (flow, action) = try verify(token)
        let error = try #require(action.failure, sourceLocation: sourceLocation)
        #expect(error.code == .idTokenInvalid, sourceLocation: sourceLocation)
        #expect(error.joseCode == code, sourceLocation: sourceLocation)
        #expect(error.statusHint == 401, sourceLocation: sourceLocation)
        #expect(!error.description.contains(token), sourceLocation: sourceLocation)
        #expect(flow.trace.last?.step == .idTokenVerification, sourceLocation: sourceLocation)
    }

    @Test func acceptsAValidToken() throws {
        let (flow, action) = try verify(try idp.idToken(nonce: nonce, now: now))
        guard case .complete(let result) = action else {
            Issue.record("expected completion, got \(action)")
            return
        }
        #expect(result.identity.subject == TestIdentityProvider.subject)
        #expect(result.identity.name == "Test User")
        let verification = try #require(flow.trace.first { $0.step == .idTokenVerification })
        #expect(verification.checks == ["signature", "iss", "aud", "exp", "nbf", "iat", "nonce"])
    }

    @Test func refusesABadSignature() throws {
        let token = try idp.idToken(nonce: nonce, now: now)
        let parts = token.split(separator: ".").map(String.init)
        let forged = try idp.idToken(nonce: nonce, now: now, changes: ["sub": "attacker"])
        let spliced = parts[0] + "." + forged.split(separator: ".")[1] + "." + parts[2]
        try expectRefusal(spliced, .invalidSignature)
        // Signed with another key that claims the trusted kid.
        let impostor = try JWK.generateRSA(keyID: "k1")
        try expectRefusal(try idp.sign(idp.claims(nonce: nonce, now: now), with: impostor), .invalidSignature)
    }

    @Test func refusesUnsignedTokens() throws {
        try expectRefusal(idp.unsignedToken(nonce: nonce, now: now), .unsignedTokenNotAllowed)
    }

    @Test func refusesAlgorithmsOutsideTheAllowList() throws {
        let ecKey = try JWK.generateP256(keyID: "ec1")
        let token = try idp.sign(idp.claims(nonce: nonce, now: now), with: ecKey)
        let (_, action) = try verify(token, keys: JWKSet(keys: [idp.key.publicKey, ecKey.publicKey]))
        #expect(action.failure?.code == .idTokenInvalid)
        #expect(action.failure?.joseCode == .algorithmNotAllowed)
    }

    @Test func refusesHMACTokensEvenWhenAPluginAllowsThem() throws {
        let plugin = TestPlugin(clientSecretKey: TestProviders.clientSecretKey, algorithms: [.rs256, .hs256])
        let provider = try ProviderRegistry([plugin]).resolve(
            TestProviders.settings(capabilities: ["oidc": true]), publicURL: TestProviders.publicURL)
        #expect(provider.idTokenAlgorithms == [.rs256])
        let secret = try JWK.symmetric(Array("a-shared-secret-of-32-bytes-long!!".utf8), keyID: "hs", algorithm: .hs256)
        let token = try idp.sign(idp.claims(nonce: nonce, now: now), with: secret, algorithm: .hs256)
        var (flow, verification) = try FlowHarness(provider).untilKeys(idToken: token)
        let action = flow.verify(verification, keys: JWKSet(keys: [secret, idp.key.publicKey]), now: now)
        let error = try #require(action.failure)
        #expect(error.code == .idTokenInvalid)
        #expect(error.joseCode != nil)
    }

    @Test func refusesWrongIssuer() throws {
        try expectRefusal(
            try idp.idToken(nonce: nonce, now: now, changes: ["iss": "https://evil.test"]), .issuerMismatch)
        try expectRefusal(try idp.idToken(nonce: nonce, now: now, changes: ["iss": "idp.test"]), .issuerMismatch)
    }

    @Test func refusesWrongAudience() throws {
        try expectRefusal(try idp.idToken(nonce: nonce, now: now, changes: ["aud": "someone-else"]), .audienceMismatch)
    }

    @Test func acceptsAConfiguredExtraAudience() throws {
        let (_, action) = try verify(try idp.idToken(nonce: nonce, now: now, changes: ["aud": "com.example.ios"]))
        guard case .complete = action else {
            Issue.record("expected completion, got \(action)")
            return
        }
    }

    @Test func checksAuthorizedPartyWhenSeveralAudiences() throws {
        let audiences: JSONValue = .array([.string(TestProviders.clientID), .string("another-client")])
        try expectRefusal(
            try idp.idToken(nonce: nonce, now: now, changes: ["aud": audiences, "azp": "another-client"]),
            .authorizedPartyMismatch)
        let (flow, action) = try verify(
            try idp.idToken(
                nonce: nonce, now: now, changes: ["aud": audiences, "azp": .string(TestProviders.clientID)]))
        guard case .complete = action else {
            Issue.record("expected completion, got \(action)")
            return
        }
        #expect(flow.trace.first { $0.step == .idTokenVerification }?.checks.contains("azp") == true)
    }

    @Test func refusesExpiredTokensBeyondTheLeeway() throws {
        let t = Int64(now.timeIntervalSince1970)
        try expectRefusal(
            try idp.idToken(nonce: nonce, now: now, changes: ["exp": .integer(t - 61), "iat": .integer(t - 400)]),
            .tokenExpired)
        let (_, withinLeeway) = try verify(
            try idp.idToken(nonce: nonce, now: now, changes: ["exp": .integer(t - 30), "iat": .integer(t - 400)]))
        #expect(withinLeeway.failure == nil)
    }

    @Test func refusesTokensNotYetValid() throws {
        let t = Int64(now.timeIntervalSince1970)
        try expectRefusal(
            try idp.idToken(nonce: nonce, now: now, changes: ["nbf": .integer(t + 120)]), .tokenNotYetValid)
    }

    @Test func refusesTokensIssuedInTheFuture() throws {
        let t = Int64(now.timeIntervalSince1970)
        try expectRefusal(
            try idp.idToken(nonce: nonce, now: now, changes: ["iat": .integer(t + 120), "exp": .integer(t + 600)]),
            .issuedInFuture)
    }

    @Test func refusesWrongOrMissingNonce() throws {
        try expectRefusal(try idp.idToken(nonce: "another-nonce", now: now), .nonceMismatch)
        try expectRefusal(try idp.idToken(nonce: nil, now: now), .missingClaim)
    }

    // The unknown-kid refetch is the key-set cache's (JWKSCacheTests, SignInTests); the flow only reports it.
    @Test func refusesAnUnknownKidAfterTheCacheRefetched() throws {
        let stranger = try JWK.generateRSA(keyID: "k9")
        let token = try idp.sign(idp.claims(nonce: nonce, now: now), with: stranger)
        var (flow, verification) = try harness.untilKeys(idToken: token)
        let action = flow.verify(verification, keys: idp.rotatedKeySet, source: .refetchedForUnknownKey, now: now)
        #expect(action.failure?.code == .idTokenInvalid)
        #expect(action.failure?.joseCode == .keyNotFound)
        let keys = try #require(flow.trace.first { $0.step == .jwks })
        #expect(keys.providerRoundTrip)
        #expect(keys.detail == "2 key(s), refetched for an unknown kid")
        #expect(flow.trace.last?.step == .idTokenVerification)
    }

    @Test func tracesWhetherTheKeysWereARoundTrip() throws {
        for (source, roundTrip, detail) in [
            (JWKSVerification.KeySource.cached, false, "1 key(s), cached"), (.fetched, true, "1 key(s), fetched"),
        ] {
            var (flow, verification) = try harness.untilKeys(idToken: try idp.idToken(nonce: nonce, now: now))
            guard case .complete = flow.verify(verification, keys: idp.keySet, source: source, now: now) else {
                Issue.record("expected completion with \(source) keys")
                continue
            }
            let keys = try #require(flow.trace.first { $0.step == .jwks })
            #expect(keys.providerRoundTrip == roundTrip)
            #expect(keys.detail == detail)
        }
    }

    @Test func asksToVerifyTheIDTokenWithTheFlowsNonce() throws {
        let token = try idp.idToken(nonce: nonce, now: now)
        let (_, verification) = try harness.untilKeys(idToken: token)
        #expect(verification.idToken == token)
        // The verifier carries the flow's nonce: a token of another sign-in is refused by it.
        let other = try idp.idToken(nonce: "nonce-of-another-sign-in", now: now)
        #expect(throws: JOSEError.self) { try verification.verifier.verify(other, keys: idp.keySet, now: now) }
        #expect(
            try verification.verifier.verify(token, keys: idp.keySet, now: now).subject == TestIdentityProvider.subject)
    }

    @Test func refusesAMissingSubject() throws {
        let (_, action) = try verify(try idp.idToken(nonce: nonce, now: now, changes: ["sub": nil]))
        #expect(action.failure?.code == .idTokenInvalid)
        #expect(action.failure?.claim == "sub")
    }

    @Test func refusesWhenTheJWKSIsUnavailable() throws {
        var (flow, _) = try harness.untilKeys(idToken: try idp.idToken(nonce: nonce, now: now))
        let action = flow.idTokenVerified(
            JWKSVerification(result: .failure(JOSEError(.jwksUnavailable, "no set")), keySource: nil, keyCount: 0),
            now: now)
        #expect(action.failure?.code == .jwksUnavailable)
        #expect(action.failure?.joseCode == .jwksUnavailable)
        #expect(flow.trace.last?.step == .jwks)
        #expect(flow.trace.last?.outcome == .failed(.jwksUnavailable))
    }
}
