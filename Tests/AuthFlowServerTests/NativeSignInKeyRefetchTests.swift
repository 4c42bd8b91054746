import AuthFlow
import AuthFlowJOSE
import AuthFlowSandbox
import Foundation
import Testing

@testable import AuthFlowServer

/// Native sign-in verifies its ID tokens through the same key-set cache as the web flow: one rate-limited
/// refetch on an unknown `kid`, then a typed refusal.
@Suite("Native sign-in: the unknown-kid refetch of the shared key-set cache")
struct NativeSignInKeyRefetchTests {
    /// Alice's genuine Apple token re-signed by a key Apple never published, under `kid`.
    static func foreignToken(_ credential: NativeApp.Credential, kid: String) throws -> String {
        let payload = try Base64URL.decode(String(credential.idToken.split(separator: ".")[1]))
        let stranger = try JWK.generateRSA(bits: 2048, keyID: kid)
        return try JWS.sign(payload: payload, key: stranger, algorithm: .rs256)
    }

    @Test func anUnknownKidRefetchesOnceAndASecondWithinTheIntervalDoesNot() async throws {
        try await TestDeployment.with(NativeApp.settings) { app in
            let nonce = try await app.nativeNonce("apple")
            let credential = try await app.sandboxCredential(
                "apple", as: People.alice, audience: NativeApp.bundleID, tokenNonce: NativeApp.hashed(nonce))
            let first = try await app.nativeSignIn(
                "apple",
                ["id_token": .string(try Self.foreignToken(credential, kid: "k-first")), "nonce": .string(nonce)])
            #expect(first.status == 401)
            #expect(first.error == "id_token_invalid")
            // The cold fetch, then one refetch for the unknown kid.
            #expect(app.sandbox.requestCounts(for: .apple).jwks == 2)
            let second = try await app.nativeSignIn(
                "apple",
                ["id_token": .string(try Self.foreignToken(credential, kid: "k-second")), "nonce": .string(nonce)])
            #expect(second.status == 401)
            #expect(second.error == "id_token_invalid")
            #expect(app.sandbox.requestCounts(for: .apple).jwks == 2)
            // Neither spent the nonce; the genuine token signs in from the cached set.
            let genuine = try await app.nativeSignIn(
                "apple", ["id_token": .string(credential.idToken), "nonce": .string(nonce)])
            #expect(genuine.status == 200)
            #expect(app.sandbox.requestCounts(for: .apple).jwks == 2)
        }
    }
}
