import Foundation
import Testing

@testable import AuthFlowJOSE

@Suite("JWT claim checks")
struct JWTVerifierTests {
    let verifier = JWTVerifier(
        allowedAlgorithms: [.es256, .rs256],
        checks: ClaimChecks(issuers: [TestKeys.issuer], audiences: [TestKeys.audience], nonce: "n-0S6_WzA2Mj"))

    func refusal(_ changes: [String: JSONValue?], verifier: JWTVerifier? = nil, at now: Date = TestKeys.now)
        -> JOSEError?
    {
        let token = TestKeys.idToken(changes)
        return joseError { () throws(JOSEError) in
            _ = try (verifier ?? self.verifier).verify(token, keys: TestKeys.publicSet, now: now)
        }
    }

    @Test func acceptsAValidIDToken() throws {
        let claims = try verifier.verify(TestKeys.idToken(), keys: TestKeys.publicSet, now: TestKeys.now)
        #expect(claims.subject == "user-1")
        #expect(claims.issuer == TestKeys.issuer)
        #expect(claims.audience == [TestKeys.audience])
        #expect(claims.nonce == "n-0S6_WzA2Mj")
    }

    @Test func refusesWrongIssuer() {
        let error = refusal(["iss": .string(TestKeys.issuer + "1")])
        #expect(error?.code == .issuerMismatch)
        #expect(error?.claim == "iss")
        #expect(refusal(["iss": nil])?.code == .missingClaim)
        #expect(refusal(["iss": 42])?.code == .invalidClaim)
    }

    @Test func acceptsAnyIssuerOfASet() throws {
        let google = JWTVerifier(
            allowedAlgorithms: [.es256],
            checks: ClaimChecks(
                issuers: ["accounts.google.com", "https://accounts.google.com"], audiences: [TestKeys.audience]))
        let token = TestKeys.idToken(["iss": "accounts.google.com"])
        #expect(try google.verify(token, keys: TestKeys.publicSet, now: TestKeys.now).issuer == "accounts.google.com")
    }

    @Test func refusesWrongAudience() {
        let error = refusal(["aud": .string(TestKeys.audience + "1")])
        #expect(error?.code == .audienceMismatch)
        #expect(error?.claim == "aud")
        #expect(refusal(["aud": nil])?.code == .missingClaim)
        #expect(refusal(["aud": ["other", "another"], "azp": "other"])?.code == .audienceMismatch)
        #expect(refusal(["aud": 7])?.code == .invalidClaim)
    }

    @Test func checksAuthorizedPartyWhenThereAreSeveralAudiences() {
        #expect(refusal(["aud": [.string(TestKeys.audience), "other"], "azp": .string(TestKeys.audience)]) == nil)
        let wrong = refusal(["aud": [.string(TestKeys.audience), "other"], "azp": "other"])
        #expect(wrong?.code == .authorizedPartyMismatch)
        #expect(wrong?.claim == "azp")
        #expect(refusal(["aud": [.string(TestKeys.audience), "other"]])?.code == .missingClaim)
    }

    @Test func checksAuthorizedPartyWhenPresentWithASingleAudience() {
        // A token issued to another party is refused even when this client is its only audience (an Android
        // client of the same app is accepted by listing it under `audiences:`).
        let other = refusal(["azp": "android-client"])
        #expect(other?.code == .authorizedPartyMismatch)
        #expect(other?.claim == "azp")
        #expect(refusal(["azp": .string(TestKeys.audience)]) == nil)
        #expect(refusal(["azp": 7])?.code == .invalidClaim)
    }

    @Test func refusesExpiredTokenBeyondLeeway() {
        let now = Int64(TestKeys.now.timeIntervalSince1970)
        #expect(refusal(["exp": .integer(now - 61)])?.code == .tokenExpired)
        #expect(refusal(["exp": .integer(now - 59)]) == nil)
        #expect(refusal(["exp": nil])?.code == .missingClaim)
        #expect(refusal(["exp": "tomorrow"])?.code == .invalidClaim)
    }

    @Test func refusesNotBeforeInTheFuture() {
        let now = Int64(TestKeys.now.timeIntervalSince1970)
        let error = refusal(["nbf": .integer(now + 120)])
        #expect(error?.code == .tokenNotYetValid)
        #expect(error?.claim == "nbf")
        #expect(refusal(["nbf": .integer(now + 30)]) == nil)
    }

    @Test func requiresIssuedAt() {
        let error = refusal(["iat": nil])
        #expect(error?.code == .missingClaim)
        #expect(error?.claim == "iat")
    }

    @Test func refusesIssuedAtInTheFutureBeyondLeeway() {
        let now = Int64(TestKeys.now.timeIntervalSince1970)
        #expect(refusal(["iat": .integer(now + 61)])?.code == .issuedInFuture)
        #expect(refusal(["iat": .integer(now + 59)]) == nil)
        let strict = JWTVerifier(allowedAlgorithms: [.es256], checks: ClaimChecks(leeway: 0))
        #expect(refusal(["iat": .integer(now + 1)], verifier: strict)?.code == .issuedInFuture)
    }

    @Test func refusesWrongOrMissingNonce() {
        let wrong = refusal(["nonce": "n-0S6_WzA2Mj1"])
        #expect(wrong?.code == .nonceMismatch)
        #expect(wrong?.message.contains("n-0S6") == false)
        #expect(refusal(["nonce": nil])?.code == .missingClaim)
    }

    @Test func checksRunInTheDocumentedOrder() {
        // Everything is wrong: the issuer is reported first, then audience, then time, then nonce.
        let now = Int64(TestKeys.now.timeIntervalSince1970)
        #expect(refusal(["iss": "x", "aud": "y", "exp": .integer(now - 1000), "nonce": "z"])?.code == .issuerMismatch)
        #expect(refusal(["aud": "y", "exp": .integer(now - 1000), "nonce": "z"])?.code == .audienceMismatch)
        #expect(refusal(["exp": .integer(now - 1000), "nonce": "z"])?.code == .tokenExpired)
    }

    @Test func signatureIsCheckedBeforeClaims() throws {
        // An expired token with a bad signature reports the signature, never the claims.
        let token = TestKeys.idToken(["exp": 1])
        let parts = token.split(separator: ".").map(String.init)
        let forged = parts[0] + "." + parts[1] + "." + Base64URL.encode(try Base64URL.decode(parts[2]).map { $0 ^ 1 })
        let error = joseError { () throws(JOSEError) in
            _ = try verifier.verify(forged, keys: TestKeys.publicSet, now: TestKeys.now)
        }
        #expect(error?.code == .invalidSignature)
    }

    @Test func refusesPayloadThatIsNotAnObject() {
        let token = try? JWS.sign(payload: Array("[1,2]".utf8), key: TestKeys.ec)
        let error = joseError { () throws(JOSEError) in
            _ = try verifier.verify(token ?? "", keys: TestKeys.publicSet, now: TestKeys.now)
        }
        #expect(error?.code == .invalidJSON)
    }

    @Test func readsAppleStyleBooleans() throws {
        let claims = try JWTClaims(payload: Array(#"{"a":true,"b":"true","c":"false","d":1}"#.utf8))
        #expect(claims.flag("a") == true)
        #expect(claims.flag("b") == true)
        #expect(claims.flag("c") == false)
        #expect(claims.flag("d") == nil)
    }

    @Test func errorMessagesNeverContainTheToken() {
        let token = TestKeys.idToken(["iss": "https://evil.example"])
        let error = joseError { () throws(JOSEError) in
            _ = try verifier.verify(token, keys: TestKeys.publicSet, now: TestKeys.now)
        }
        let signature = String(token.split(separator: ".").last ?? "")
        #expect(error != nil)
        #expect(error.map { !$0.description.contains(signature) } == true)
    }
}
