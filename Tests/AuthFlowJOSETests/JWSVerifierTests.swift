import Foundation
import Testing

@testable import AuthFlowJOSE

@Suite("JWS verification")
struct JWSVerifierTests {
    let verifier = JWSVerifier(allowedAlgorithms: JWSAlgorithm.asymmetric)
    let payload = Array(#"{"sub":"x"}"#.utf8)

    func refusal(_ token: String, keys: JWKSet = TestKeys.publicSet, verifier: JWSVerifier? = nil) -> JOSEError? {
        joseError { () throws(JOSEError) in _ = try (verifier ?? self.verifier).verify(token, keys: keys) }
    }

    @Test(arguments: [TestKeys.rsa, TestKeys.ec, TestKeys.ed])
    func acceptsEachAsymmetricAlgorithm(key: JWK) throws {
        let token = try JWS.sign(payload: payload, key: key)
        let result = try verifier.verify(token, keys: TestKeys.publicSet)
        #expect(result.payload == payload)
        #expect(result.key.keyID == key.keyID)
        #expect(result.header.algorithm == key.defaultAlgorithm.rawValue)
    }

    @Test func acceptsPS256WithAnRSAKeyWithoutAlg() throws {
        let token = try JWS.sign(payload: payload, key: TestKeys.rsa, algorithm: .ps256)
        #expect(try verifier.verify(token, keys: TestKeys.publicSet).payload == payload)
    }

    @Test func refusesAlgNone() {
        let token =
            Base64URL.encode(Array(#"{"alg":"none","kid":"ec-1"}"#.utf8)) + "." + Base64URL.encode(payload) + "."
        #expect(refusal(token)?.code == .unsignedTokenNotAllowed)
        let upper = Base64URL.encode(Array(#"{"alg":"NONE"}"#.utf8)) + "." + Base64URL.encode(payload) + "."
        #expect(refusal(upper)?.code == .unsignedTokenNotAllowed)
    }

    @Test func refusesHS256SignedWithThePublicKeyBytes() throws {
        // The classic confusion attack: HMAC keyed with the public key's own bytes.
        let secret = Array(TestKeys.ec.publicKey.jsonValue().serialized().utf8)
        let hmacKey = try JWK.symmetric(secret)
        let token = TestKeys.token(
            header: ["alg": "HS256", "kid": "ec-1"], payload: payload, key: hmacKey, algorithm: .hs256)
        #expect(refusal(token)?.code == .algorithmNotAllowed)
        // Even when the caller (wrongly) allows HS256, a public-key set never verifies HMAC.
        let lax = JWSVerifier(allowedAlgorithms: Set(JWSAlgorithm.allCases))
        #expect(refusal(token, verifier: lax)?.code == .keyMismatch)
    }

    @Test func refusesUnknownCriticalHeader() {
        let token = TestKeys.token(
            header: ["alg": "ES256", "kid": "ec-1", "crit": ["exp"], "exp": 1], payload: payload, key: TestKeys.ec,
            algorithm: .es256)
        #expect(refusal(token)?.code == .unsupportedCriticalHeader)
    }

    @Test(arguments: ["jwk", "jku", "x5u", "x5c"])
    func refusesEmbeddedOrReferencedKeys(member: String) {
        let value: JSONValue = member == "jwk" ? TestKeys.ec.publicKey.jsonValue() : "https://attacker.example/keys"
        let token = TestKeys.token(
            header: ["alg": "ES256", "kid": "ec-1", member: value], payload: payload, key: TestKeys.ec,
            algorithm: .es256)
        #expect(refusal(token)?.code == .embeddedKeyRefused)
        // The DPoP opening lets a `jwk` through and nothing else.
        var dpop = JWSVerifier(allowedAlgorithms: [.es256])
        dpop.allowsEmbeddedJWK = true
        if member == "jwk" {
            #expect(refusal(token, verifier: dpop) == nil)
        } else {
            #expect(refusal(token, verifier: dpop)?.code == .embeddedKeyRefused)
        }
    }

    @Test func refusesDEREncodedES256Signature() throws {
        let token = try JWS.sign(payload: payload, key: TestKeys.ec)
        let parts = token.split(separator: ".").map(String.init)
        let raw = try Base64URL.decode(parts[2])
        let der = raw.withUnsafeBufferPointer { ECDSASignatureEncoding.der(fromRaw: $0, half: 32) }
        #expect(der.count > 64)
        // The DER form is a correct signature in OpenSSL's eyes; JOSE must still refuse it.
        let derToken = parts[0] + "." + parts[1] + "." + Base64URL.encode(der)
        #expect(refusal(derToken)?.code == .invalidSignature)
        #expect(refusal(token) == nil)
    }

    @Test func refusesOversizeTokenBeforeParsing() {
        let small = JWSVerifier(allowedAlgorithms: JWSAlgorithm.asymmetric, maxTokenBytes: 100)
        let huge = String(repeating: "A", count: 101)
        #expect(refusal(huge, verifier: small)?.code == .tokenTooLarge)
        let token = TestKeys.idToken()
        #expect(
            refusal(token, verifier: JWSVerifier(allowedAlgorithms: [.es256], maxTokenBytes: token.utf8.count - 1))?
                .code == .tokenTooLarge)
    }

    @Test func refusesPaddingWhitespaceAndForeignCharacters() throws {
        let token = try JWS.sign(payload: Array("x".utf8), key: TestKeys.ec)
        let parts = token.split(separator: ".").map(String.init)
        for variant in [
            parts[0] + "=." + parts[1] + "." + parts[2],
            parts[0] + "." + parts[1] + "==." + parts[2],
            parts[0] + "." + parts[1] + "." + parts[2] + "=",
            " " + token,
            parts[0] + ".\n" + parts[1] + "." + parts[2],
            parts[0] + "." + parts[1] + "."
                + parts[2].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/") + "+",
        ] {
            #expect(refusal(variant)?.code == .invalidBase64URL, "\(variant.prefix(8))")
        }
    }

    @Test func refusesMalformedStructure() {
        #expect(refusal("")?.code == .malformedToken)
        #expect(refusal("a.b")?.code == .malformedToken)
        #expect(refusal("a.b.c.d")?.code == .malformedToken)
        #expect(refusal(".e30.")?.code == .malformedToken)
        let notJSON = Base64URL.encode(Array("hello".utf8)) + ".e30."
        #expect(refusal(notJSON)?.code == .invalidJSON)
        let noAlg = Base64URL.encode(Array(#"{"kid":"ec-1"}"#.utf8)) + ".e30.AA"
        #expect(refusal(noAlg)?.code == .malformedToken)
    }

    @Test func refusesUnknownKid() {
        let token = TestKeys.token(
            header: ["alg": "ES256", "kid": "nope"], payload: payload, key: TestKeys.ec, algorithm: .es256)
        let error = refusal(token)
        #expect(error?.code == .keyNotFound)
        #expect(error?.keyID == "nope")
    }

    @Test func refusesAlgorithmThatDoesNotFitTheKey() {
        // The token claims RS256 but names the EC key.
        let token = TestKeys.token(
            header: ["alg": "RS256", "kid": "ec-1"], payload: payload, key: TestKeys.rsa, algorithm: .rs256)
        #expect(refusal(token)?.code == .keyMismatch)
        // A key pinned to RS256 refuses PS256 tokens.
        let pinned = try? TestKeys.rsa.publicKey.with(keyID: "rsa-1", algorithm: .rs256)
        let ps = TestKeys.token(
            header: ["alg": "PS256", "kid": "rsa-1"], payload: payload, key: TestKeys.rsa, algorithm: .ps256)
        #expect(refusal(ps, keys: JWKSet(keys: [pinned!]))?.code == .keyMismatch)
    }

    @Test func refusesAlgorithmOutsideTheAllowList() throws {
        let token = try JWS.sign(payload: payload, key: TestKeys.rsa)
        #expect(refusal(token, verifier: JWSVerifier(allowedAlgorithms: [.es256]))?.code == .algorithmNotAllowed)
    }

    @Test func refusesUnsupportedAlgorithm() {
        let token = Base64URL.encode(Array(#"{"alg":"ES256K","kid":"ec-1"}"#.utf8)) + ".e30.AAAA"
        #expect(refusal(token)?.code == .unsupportedAlgorithm)
    }

    @Test func refusesTamperedSignatureAndPayload() throws {
        let token = try JWS.sign(payload: payload, key: TestKeys.ed)
        let parts = token.split(separator: ".").map(String.init)
        var signature = try Base64URL.decode(parts[2])
        signature = signature.map { $0 ^ 0x5A }
        #expect(refusal(parts[0] + "." + parts[1] + "." + Base64URL.encode(signature))?.code == .invalidSignature)
        #expect(
            refusal(parts[0] + "." + Base64URL.encode(Array(#"{"sub":"y"}"#.utf8)) + "." + parts[2])?.code
                == .invalidSignature)
    }

    @Test func refusesKeyMarkedForEncryption() throws {
        let encryptionKey = try JWK(
            json: {
                guard case .object(var members) = TestKeys.ec.publicKey.jsonValue() else { return .null }
                members["use"] = "enc"
                return .object(members)
            }())
        let token = try JWS.sign(payload: payload, key: TestKeys.ec)
        #expect(refusal(token, keys: JWKSet(keys: [encryptionKey]))?.code == .keyMismatch)
    }

    @Test func refusesAmbiguousKeySelectionWithoutKid() throws {
        let anonymous1 = try TestKeys.ec.publicKey.with(keyID: nil)
        let anonymous2 = try TestKeys.otherEC.publicKey.with(keyID: nil)
        let token = try JWS.sign(payload: payload, key: TestKeys.ec.with(keyID: nil))
        #expect(refusal(token, keys: JWKSet(keys: [anonymous1, anonymous2]))?.code == .ambiguousKey)
        #expect(refusal(token, keys: JWKSet(keys: [anonymous1])) == nil)
    }

    @Test func refusesDuplicateKidsInAConstructedSet() throws {
        let token = try JWS.sign(payload: payload, key: TestKeys.ec)
        let twin = try TestKeys.otherEC.publicKey.with(keyID: "ec-1")
        #expect(refusal(token, keys: JWKSet(keys: [TestKeys.ec.publicKey, twin]))?.code == .ambiguousKey)
    }

    @Test func headerPeekReadsKidWithoutVerifying() throws {
        let header = try JWSVerifier.header(of: TestKeys.idToken())
        #expect(header.keyID == "ec-1")
        #expect(header.algorithm == "ES256")
        #expect(header.type == "JWT")
    }

    @Test func signedHeaderTakesAlgAndKidFromTheKeyAndTypJWTUnlessGiven() throws {
        let key = try JWK.generateP256(keyID: "k1")
        func header(_ token: String) throws -> String {
            String(decoding: try Base64URL.decode(token.split(separator: ".")[0]), as: UTF8.self)
        }
        #expect(try header(JWT.sign(claims: ["sub": "a"], key: key)) == #"{"alg":"ES256","kid":"k1","typ":"JWT"}"#)
        let extra: [String: JSONValue] = ["alg": "none", "kid": "other", "typ": "at+jwt", "cty": "x", "zz": 1]
        let token = try JWT.sign(claims: ["sub": "a"], key: key, extraHeader: extra)
        #expect(try header(token) == #"{"alg":"ES256","cty":"x","kid":"k1","typ":"at+jwt","zz":1}"#)
        let verified = try JWSVerifier(allowedAlgorithms: [.es256]).verify(token, keys: JWKSet(keys: [key.publicKey]))
        #expect(verified.header.keyID == "k1" && verified.header.type == "at+jwt")
        let bare = try JWS.sign(
            payload: Array("{}".utf8), key: key, algorithm: nil, headerKeyID: nil, extraHeader: ["kid": "other"])
        #expect(try header(bare) == #"{"alg":"ES256"}"#)
    }
}
