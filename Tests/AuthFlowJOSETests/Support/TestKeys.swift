import Foundation

@testable import AuthFlowJOSE

/// Keys generated once per test process, and helpers to build tokens with any header.
enum TestKeys {
    static let rsa: JWK = try! JWK.generateRSA(bits: 2048, keyID: "rsa-1")
    static let ec: JWK = try! JWK.generateP256(keyID: "ec-1")
    static let ed: JWK = try! JWK.generateEd25519(keyID: "ed-1")
    static let otherEC: JWK = try! JWK.generateP256(keyID: "ec-2")

    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let issuer = "https://issuer.example"
    static let audience = "client-123"

    static var publicSet: JWKSet { JWKSet(keys: [rsa.publicKey, ec.publicKey, ed.publicKey]) }

    /// Claims of a typical, valid ID token at ``now``.
    static func claims(_ changes: [String: JSONValue?] = [:]) -> [String: JSONValue] {
        var claims: [String: JSONValue] = [
            "iss": .string(issuer), "aud": .string(audience), "sub": "user-1",
            "iat": .integer(Int64(now.timeIntervalSince1970) - 10),
            "exp": .integer(Int64(now.timeIntervalSince1970) + 600),
            "nonce": "n-0S6_WzA2Mj",
        ]
        for (name, value) in changes { claims[name] = value }
        return claims
    }

    /// Signs `payload` under an arbitrary header (no checks), for negative tests.
    static func token(header: [String: JSONValue], payload: [UInt8], key: JWK, algorithm: JWSAlgorithm) -> String {
        let input = Base64URL.encode(JSONValue.object(header).serializedBytes()) + "." + Base64URL.encode(payload)
        let signature = Array(input.utf8).withUnsafeBufferPointer { try! key.signature(over: $0, algorithm: algorithm) }
        return input + "." + Base64URL.encode(signature)
    }

    static func token(header: [String: JSONValue], claims: [String: JSONValue], key: JWK, algorithm: JWSAlgorithm)
        -> String
    {
        token(header: header, payload: JSONValue.object(claims).serializedBytes(), key: key, algorithm: algorithm)
    }

    static func idToken(_ changes: [String: JSONValue?] = [:], key: JWK = ec) -> String {
        try! JWT.sign(claims: claims(changes), key: key)
    }
}

/// Runs `body` and returns the JOSEError it threw (nil when it did not throw).
func joseError(_ body: () throws(JOSEError) -> Void) -> JOSEError? {
    do throws(JOSEError) {
        try body()
        return nil
    } catch {
        return error
    }
}
