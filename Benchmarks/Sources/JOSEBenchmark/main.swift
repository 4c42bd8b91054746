// Measures operations per second of AuthFlow's full JWT paths on a realistic ID token:
// ES256 sign (claims → JSON → JWS), ES256 verify and RS256 (2048) verify (split, base64url,
// header, key by kid, signature, claims JSON, iss/aud/exp/nbf/iat/nonce checks), and one DPoP proof
// (RFC 9449) as AuthFlow signs it before each token or userinfo request: a fresh jti, htm, htu, iat, the
// access token's hash as ath and the server's nonce, signed ES256 with the public jwk in the header; and the
// P-256 key a sign-in with DPoP generates first (dpop_key).
// Usage: JOSEBenchmark [seconds-per-measurement] [operation]   Prints one JSON object: operations per second
// (0 for the operations left out when one is named), and the length of each token's signing input
// (header.payload), which run.sh gives the libcrypto floor (floor/jose_floor.c) so that it hashes as much as
// this path does.
import AuthFlowJOSE
import Foundation

let seconds = CommandLine.arguments.dropFirst().first.flatMap(Double.init) ?? 3
/// Optional second argument: run only this measurement (for profiling).
let only = CommandLine.arguments.dropFirst(2).first

let issuer = "https://accounts.google.com"
let audience = "1234567890-abcdefghijklmnopqrstuvwxyz012345.apps.googleusercontent.com"
let nonce = "n-0S6_WzA2Mj-7Rkqx3bQ9"

func claims(now: Int64) -> [String: JSONValue] {
    [
        "iss": .string(issuer), "azp": .string(audience), "aud": .string(audience),
        "sub": "110169484474386276334", "email": "jane.doe@example.com", "email_verified": true,
        "at_hash": "HK6E_P6Dh8Y93mRNtsDB1Q", "nonce": .string(nonce), "name": "Jane Doe",
        "picture": "https://lh3.googleusercontent.com/a/ACg8ocJ0example=s96-c", "given_name": "Jane",
        "family_name": "Doe", "locale": "en", "iat": .integer(now), "exp": .integer(now + 3600),
    ]
}

/// Runs `body` in batches until `seconds` have passed; returns operations per second.
func measure(_ name: String, _ body: () throws -> Void) rethrows -> Double {
    if let only, only != name { return 0 }
    for _ in 0..<200 { try body() }  // warm up
    var operations = 0
    let start = DispatchTime.now().uptimeNanoseconds
    var elapsed: UInt64 = 0
    let limit = UInt64(seconds * 1e9)
    repeat {
        for _ in 0..<100 { try body() }
        operations += 100
        elapsed = DispatchTime.now().uptimeNanoseconds - start
    } while elapsed < limit
    return Double(operations) / (Double(elapsed) / 1e9)
}

do {
    let now = Int64(Date().timeIntervalSince1970)
    let ec = try JWK.generateP256(keyID: "ec-bench")
    // A fixed RSA key would do as well; generation is skipped when only ES256 is profiled.
    let ecOnly = only?.hasPrefix("es256") == true || only?.hasPrefix("dpop") == true
    let rsa = ecOnly ? ec : try JWK.generateRSA(bits: 2048, keyID: "rsa-bench")
    // The verifier's key set is what a provider's JWKS gives: public keys, parsed once.
    let keys = JWKSet(keys: rsa == ec ? [ec.publicKey] : [rsa.publicKey, ec.publicKey])
    let verifier = JWTVerifier(
        allowedAlgorithms: [.rs256, .es256],
        checks: ClaimChecks(issuers: [issuer, "accounts.google.com"], audiences: [audience], nonce: nonce))
    let ecToken = try JWT.sign(claims: claims(now: now), key: ec)
    let rsaToken = try JWT.sign(claims: claims(now: now), key: rsa)
    let date = Date()
    _ = try verifier.verify(ecToken, keys: keys, now: date)
    _ = try verifier.verify(rsaToken, keys: keys, now: date)

    let signedClaims = claims(now: now)
    let sign = try measure("es256_sign") { _ = try JWT.sign(claims: signedClaims, key: ec) }
    let ecVerify = try measure("es256_verify") { _ = try verifier.verify(ecToken, keys: keys, now: Date()) }
    let rsaVerify = try measure("rs256_verify") { _ = try verifier.verify(rsaToken, keys: keys, now: Date()) }
    // The grant's key signs every proof; its public jwk is made once per proof, as the client makes it.
    let random = SystemRandom()
    let accessToken = "ya29.a0AfB_byC" + String(repeating: "x", count: 160)
    let proofNonce = "nonce-" + String(repeating: "n", count: 37)
    let dpop = try measure("dpop_proof") {
        let proofClaims: [String: JSONValue] = [
            "jti": .string(Base64URL.encode(random.bytes(24))), "htm": "GET",
            "htu": "https://openidconnect.googleapis.com/v1/userinfo",
            "iat": .integer(Int64(Date().timeIntervalSince1970.rounded(.down))),
            "ath": .string(Base64URL.encode(Digest.sha256(Array(accessToken.utf8)))), "nonce": .string(proofNonce),
        ]
        // As `DPoPProof.make` does: the key's `jsonValue()` is its public members only.
        _ = try JWT.sign(claims: proofClaims, key: ec, extraHeader: ["typ": "dpop+jwt", "jwk": ec.jsonValue()])
    }
    let dpopKey = try measure("dpop_key") { _ = try JWK.generateP256() }
    let ecInput = ecToken.utf8.count - (ecToken.split(separator: ".").last?.utf8.count ?? 0) - 1
    let rsaInput = rsaToken.utf8.count - (rsaToken.split(separator: ".").last?.utf8.count ?? 0) - 1
    print(
        #"{"es256_sign": \#(Int(sign)), "es256_verify": \#(Int(ecVerify)), "rs256_verify": \#(Int(rsaVerify)), "#
            + #""dpop_proof": \#(Int(dpop)), "dpop_key": \#(Int(dpopKey)), "#
            + #""es256_input_bytes": \#(ecInput), "rs256_input_bytes": \#(rsaInput)}"#)
} catch {
    FileHandle.standardError.write(Data("benchmark failed: \(error)\n".utf8))
    exit(1)
}
