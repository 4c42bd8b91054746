import Foundation
import Testing

@testable import AuthFlowJOSE

@Suite("PKCE and Apple client secret")
struct PKCEAndAppleTests {
    @Test func generatesA43CharacterVerifierAndItsChallenge() {
        let pkce = PKCE.generate(random: SystemRandom())
        #expect(pkce.verifier.count == 43)
        #expect(pkce.challenge == PKCE.challenge(for: pkce.verifier))
        #expect(pkce.method == "S256")
        #expect(PKCE.generate(random: SystemRandom()) != pkce)
    }

    @Test func refusesVerifiersOfWrongLengthOrAlphabet() {
        for bad in [
            String(repeating: "a", count: 42), String(repeating: "a", count: 129),
            String(repeating: "a", count: 42) + "+",
        ] {
            #expect(joseError { () throws(JOSEError) in _ = try PKCE(verifier: bad) }?.code == .invalidClaim)
        }
        #expect(
            joseError { () throws(JOSEError) in _ = try PKCE(verifier: String(repeating: "a-._~", count: 25)) } == nil)
    }

    @Test func mintsAnAppleClientSecretThatVerifies() throws {
        let key = try JWK(pkcs8PEM: try TestKeys.ec.pkcs8PEM())
        let issuedAt = TestKeys.now
        let secret = try AppleClientSecret.make(
            teamID: "ABCDE12345", keyID: "KEY1234567", clientID: "com.example.web",
            privateKey: key, issuedAt: issuedAt, lifetime: 3600)
        let header = try JWSVerifier.header(of: secret)
        #expect(header.algorithm == "ES256")
        #expect(header.keyID == "KEY1234567")
        let verifier = JWTVerifier(
            allowedAlgorithms: [.es256],
            checks: ClaimChecks(issuers: ["ABCDE12345"], audiences: ["https://appleid.apple.com"]))
        let publicKey = try key.publicKey.with(keyID: "KEY1234567")
        let claims = try verifier.verify(secret, keys: JWKSet(keys: [publicKey]), now: issuedAt)
        #expect(claims.subject == "com.example.web")
        #expect(claims.issuedAt == Int64(issuedAt.timeIntervalSince1970))
        #expect(claims.expiresAt == Int64(issuedAt.timeIntervalSince1970) + 3600)
    }

    @Test func refusesLifetimesAboveApplesMaximumAndNonP256Keys() {
        let tooLong = joseError { () throws(JOSEError) in
            _ = try AppleClientSecret.make(
                teamID: "T", keyID: "K", clientID: "C", privateKey: TestKeys.ec, issuedAt: TestKeys.now,
                lifetime: AppleClientSecret.maximumLifetime + 1)
        }
        #expect(tooLong?.code == .invalidClaim)
        #expect(
            joseError { () throws(JOSEError) in
                _ = try AppleClientSecret.make(
                    teamID: "T", keyID: "K", clientID: "C", privateKey: TestKeys.ec, issuedAt: TestKeys.now,
                    lifetime: AppleClientSecret.maximumLifetime)
            } == nil)
        #expect(
            joseError { () throws(JOSEError) in
                _ = try AppleClientSecret.make(
                    teamID: "T", keyID: "K", clientID: "C", privateKey: TestKeys.rsa, issuedAt: TestKeys.now,
                    lifetime: 60)
            }?.code == .keyMismatch)
        #expect(
            joseError { () throws(JOSEError) in
                _ = try AppleClientSecret.make(
                    teamID: "T", keyID: "K", clientID: "C", privateKey: TestKeys.ec.publicKey, issuedAt: TestKeys.now,
                    lifetime: 60)
            }?.code == .keyMismatch)
    }

    @Test func manualClockMovesOnlyWhenTold() {
        let clock = ManualClock(TestKeys.now)
        #expect(clock.now() == TestKeys.now)
        clock.advance(by: 5)
        #expect(clock.now() == TestKeys.now.addingTimeInterval(5))
        clock.set(TestKeys.now)
        #expect(clock.now() == TestKeys.now)
    }
}
