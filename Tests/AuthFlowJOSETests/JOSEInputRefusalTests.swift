import Testing

@testable import AuthFlowJOSE

/// Keys, key sets, headers, claims and JSON from outside that are malformed in the less common ways: each
/// is refused with its own typed error, never accepted or crashed on.
@Suite("JOSE input refusals")
struct JOSEInputRefusalTests {
    func keyRefusal(_ json: JSONValue) -> JOSEError? {
        joseError { () throws(JOSEError) in _ = try JWK(json: json) }
    }

    func members(_ key: JWK) -> [String: JSONValue] { key.exportPrivate().objectValue ?? [:] }

    /// Verifies `compact` against `keys` (ES256 and HS256 allowed) and returns the refusal.
    func verifyRefusal(_ compact: String, keys: JWKSet = TestKeys.publicSet) -> JOSEError? {
        joseError { () throws(JOSEError) in
            _ = try JWSVerifier(allowedAlgorithms: [.es256, .hs256]).verify(compact, keys: keys)
        }
    }

    // MARK: - JWK members

    @Test func refusesJWKsWhoseMembersHaveTheWrongShape() {
        var noKeyType = members(TestKeys.ec)
        noKeyType["kty"] = nil
        var numericKeyID = members(TestKeys.ec)
        numericKeyID["kid"] = 7
        var operationsNotAnArray = members(TestKeys.ec)
        operationsNotAnArray["key_ops"] = "sign"
        var operationsNotStrings = members(TestKeys.ec)
        operationsNotStrings["key_ops"] = [1]
        var notBase64URL = members(TestKeys.ec)
        notBase64URL["x"] = "a+b/"
        var noCurve = members(TestKeys.ec)
        noCurve["crv"] = nil
        var okpOnAnotherCurve = members(TestKeys.ed)
        okpOnAnotherCurve["crv"] = "X25519"
        let cases: [(JSONValue, String)] = [
            ("a string", "a JWK to be a JSON object"),
            (.object(noKeyType), "a 'kty' member"),
            (.object(numericKeyID), "'kid' to be a string"),
            (.object(operationsNotAnArray), "'key_ops' to be an array of strings"),
            (.object(operationsNotStrings), "'key_ops' to be an array of strings"),
            (.object(notBase64URL), "'x' to be strict base64url"),
            (.object(noCurve), "a 'crv' member for kty EC"),
            (.object(okpOnAnotherCurve), "crv Ed25519 for kty OKP, found 'X25519'"),
        ]
        for (json, expected) in cases {
            let error = keyRefusal(json)
            #expect(error?.code == .invalidKey, "\(expected)")
            #expect(error?.message.contains(expected) == true, "\(error?.message ?? "accepted")")
        }
    }

    @Test func refusesAnRSAPrivateKeyWithoutItsCRTMembers() {
        for missing in ["p", "q", "dp", "dq", "qi"] {
            var rsa = members(TestKeys.rsa)
            rsa[missing] = nil
            let error = keyRefusal(.object(rsa))
            #expect(error?.code == .invalidKey)
            #expect(error?.message.contains("found no '\(missing)'") == true, "\(error?.message ?? "accepted")")
        }
    }

    @Test func refusesAnRSAPrivateHalfFromAnotherKey() throws {
        let other = try JWK.generateRSA(bits: 2048)
        var mixed = members(TestKeys.rsa)
        for name in ["d", "p", "q", "dp", "dq", "qi"] { mixed[name] = members(other)[name] }
        #expect(keyRefusal(.object(mixed))?.code == .invalidKey)
    }

    @Test func refusesRSAModuliAndExponentsOutOfShape() {
        let rsa = members(TestKeys.rsa)
        func with(_ name: String, _ bytes: [UInt8]) -> JSONValue {
            var changed = rsa
            changed["d"] = nil
            for part in ["p", "q", "dp", "dq", "qi"] { changed[part] = nil }
            changed[name] = .string(Base64URL.encode(bytes))
            return .object(changed)
        }
        let tooLong = with("n", [0xC1] + [UInt8](repeating: 0xFF, count: 2048))
        #expect(keyRefusal(tooLong)?.message.contains("at most") == true)
        let even = with("n", [0xC1] + [UInt8](repeating: 0xFF, count: 254) + [0xFE])
        #expect(keyRefusal(even)?.message.contains("odd RSA modulus") == true)
        let longExponent = with("e", [UInt8](repeating: 0x01, count: 33))
        #expect(keyRefusal(longExponent)?.message.contains("exponent of 1 to 32 bytes") == true)
        for json in [tooLong, even, longExponent] { #expect(keyRefusal(json)?.code == .invalidKey) }
    }

    @Test func refusesCoordinatesAndPrivateHalvesOfTheWrongSize() {
        var shortD = members(TestKeys.ec)
        shortD["d"] = .string(Base64URL.encode([UInt8](repeating: 1, count: 31)))
        var shortX = members(TestKeys.ed)
        shortX["d"] = nil
        shortX["x"] = .string(Base64URL.encode([UInt8](repeating: 1, count: 31)))
        var shortEdD = members(TestKeys.ed)
        shortEdD["d"] = .string(Base64URL.encode([UInt8](repeating: 1, count: 33)))
        let cases: [(JSONValue, String)] = [
            (.object(shortD), "32-byte d for P-256, found 31 bytes"),
            (.object(shortX), "32-byte Ed25519 x, found 31 bytes"),
            (.object(shortEdD), "32-byte Ed25519 d, found 33 bytes"),
        ]
        for (json, expected) in cases {
            let error = keyRefusal(json)
            #expect(error?.code == .invalidKey)
            #expect(error?.message.contains(expected) == true, "\(error?.message ?? "accepted")")
        }
    }

    @Test func exportsOnlyPublicMembersOfAPublicKey() {
        for key in [TestKeys.rsa, TestKeys.ec, TestKeys.ed] {
            #expect(key.publicKey.exportPrivate() == key.publicKey.jsonValue())
            #expect(key.publicKey.exportPrivate()["d"] == nil)
        }
    }

    @Test func readsAJWKFromBytes() throws {
        let key = try JWK(jsonData: Array(TestKeys.ec.jsonValue().serialized().utf8))
        #expect(key == TestKeys.ec.publicKey)
        #expect(joseError { () throws(JOSEError) in _ = try JWK(jsonData: Array("{".utf8)) }?.code == .invalidJSON)
    }

    @Test func equalKeysHashAlikeAndDifferentOnesDoNot() throws {
        let again = try JWK(json: TestKeys.ec.exportPrivate())
        let keys: Set<JWK> = [TestKeys.ec, again, TestKeys.otherEC, TestKeys.ec.publicKey]
        #expect(keys.count == 3)
        #expect(keys.contains(try TestKeys.ec.with(keyID: "ec-1")))
        #expect(!keys.contains(try TestKeys.ec.with(keyID: "ec-renamed")))
    }

    @Test func thumbprintsASymmetricKeyOverItsRequiredMembers() throws {
        let secret = [UInt8](repeating: 0x2A, count: 32)
        let key = try JWK.symmetric(secret, keyID: "h1")
        let canonical = #"{"k":"\#(Base64URL.encode(secret))","kty":"oct"}"#
        #expect(key.thumbprint() == Base64URL.encode(Digest.sha256(Array(canonical.utf8))))
    }

    // MARK: - PEM and generation

    /// P-521, secp256k1 and X25519 keys made with `openssl genpkey` for these tests only.
    static let p521PEM = """
        -----BEGIN PRIVATE KEY-----
        MIHuAgEAMBAGByqGSM49AgEGBSuBBAAjBIHWMIHTAgEBBEIBK4meyoauOJS1ujXJ
        G64xMTzDs12Lz5OjSVwn82GDcCpSvx7CO4Gyq8P1DEsGP/F/B1dNi1DelIRP1nd+
        MFj805ChgYkDgYYABAD9dnjg+L+CKNq8VTg0TONDZ1qDO/s/jsJ0m9gBZw0LGGPK
        Tjdr4OHCaaNqkCd3rBI2SlidiVF0yn6y4neYZa0J5gA0PxbNbjSvhzlQW74U8sNO
        cpZAJYdR2EcZqrS9JF95wWM5lSUdZQfH17AD7B5TEIOXQinqQexgzDaFYfeAzuli
        TA==
        -----END PRIVATE KEY-----
        """
    static let secp256k1PEM = """
        -----BEGIN PRIVATE KEY-----
        MIGEAgEAMBAGByqGSM49AgEGBSuBBAAKBG0wawIBAQQgjP1XiDa/te4hHgY1b1bm
        0Tau0URGEojWJ5db4nqdM0ShRANCAAQhW6hh6AQNuuhIehAyh2KMirCqLoOij/mp
        Amtd/q08hr9mJQ3MLjlmgkhSEhJgRIntpA98LeuVgAE5HoDeFOUP
        -----END PRIVATE KEY-----
        """
    static let x25519PEM = """
        -----BEGIN PRIVATE KEY-----
        MC4CAQAwBQYDK2VuBCIEIFB32YLKd1zGNxixxEyaF3wOAAuMfKBAiLJiZdfDc3BR
        -----END PRIVATE KEY-----
        """

    @Test func refusesPEMKeysOnCurvesAndTypesJOSEDoesNotUse() {
        let curve = joseError { () throws(JOSEError) in _ = try JWK(pkcs8PEM: Self.secp256k1PEM, keyID: "k1") }
        #expect(curve?.code == .invalidKey)
        #expect(curve?.message.contains("P-256, P-384 or P-521, found another curve") == true)
        #expect(curve?.keyID == "k1")
        let type = joseError { () throws(JOSEError) in _ = try JWK(pkcs8PEM: Self.x25519PEM) }
        #expect(type?.code == .invalidKey)
        #expect(type?.message.contains("RSA, EC or Ed25519 key, found another key type") == true)
    }

    @Test func signsAndVerifiesES512WithAP521Key() throws {
        let key = try JWK(pkcs8PEM: Self.p521PEM, keyID: "p521")
        #expect(key.defaultAlgorithm == .es512)
        let token = try JWS.sign(payload: Array("payload".utf8), key: key)
        let verifier = JWSVerifier(allowedAlgorithms: [.es512])
        let result = try verifier.verify(token, keys: JWKSet(keys: [key.publicKey]))
        #expect(result.payload == Array("payload".utf8))
        // A flipped signature byte is refused.
        var parts = token.split(separator: ".").map(String.init)
        var signature = try Base64URL.decode(parts[2])
        signature[10] ^= 0x01
        parts[2] = Base64URL.encode(signature)
        let tampered = joseError { () throws(JOSEError) in
            _ = try verifier.verify(parts.joined(separator: "."), keys: JWKSet(keys: [key.publicKey]))
        }
        #expect(tampered?.code == .invalidSignature)
    }

    @Test func refusesToGenerateRSAKeysLargerThanItAccepts() {
        let error = joseError { () throws(JOSEError) in _ = try JWK.generateRSA(bits: KeyMaterial.maximumRSABits + 8) }
        #expect(error?.code == .invalidKey)
    }

    // MARK: - Signing

    @Test func refusesToSignWithAKeyThatMayNotSign() throws {
        let payload = Array("p".utf8)
        func refusal(_ key: JWK, _ algorithm: JWSAlgorithm? = nil) -> JOSEError? {
            joseError { () throws(JOSEError) in _ = try JWS.sign(payload: payload, key: key, algorithm: algorithm) }
        }
        #expect(refusal(TestKeys.ec.publicKey)?.code == .invalidKey)
        var encryption = members(TestKeys.ec)
        encryption["use"] = "enc"
        #expect(refusal(try JWK(json: .object(encryption)))?.code == .keyMismatch)
        let rs256Only = try TestKeys.rsa.with(keyID: "rsa-1", algorithm: .rs256)
        let mismatch = refusal(rs256Only, .ps256)
        #expect(mismatch?.code == .keyMismatch)
        #expect(mismatch?.message.contains("expected RS256 for this key, found PS256") == true)
    }

    @Test func signsAPayloadHeldInNonContiguousStorage() throws {
        let payload = Array("{\"sub\":\"user-1\"}".utf8)
        let token = try JWS.sign(payload: payload.lazy.map { $0 }, key: TestKeys.ec)
        let result = try JWSVerifier(allowedAlgorithms: [.es256]).verify(token, keys: TestKeys.publicSet)
        #expect(result.payload == payload)
    }

    // MARK: - Key sets

    @Test func refusesASetMixingSymmetricAndPublicKeysAtVerification() throws {
        let hmac = try JWK.symmetric([UInt8](repeating: 7, count: 32), keyID: "h")
        let mixed = JWKSet(keys: [TestKeys.ec.publicKey, hmac])
        let token = try JWS.sign(payload: Array("p".utf8), key: TestKeys.ec)
        let error = verifyRefusal(token, keys: mixed)
        #expect(error?.code == .invalidKey)
        #expect(error?.message.contains("only symmetric or only asymmetric") == true)
    }

    @Test func refusesATokenWithoutKidWhenNoKeyFitsItsAlgorithm() throws {
        let token = TestKeys.token(
            header: ["alg": "ES256"], payload: Array("p".utf8), key: TestKeys.ec, algorithm: .es256)
        let error = verifyRefusal(token, keys: JWKSet(keys: [TestKeys.ed.publicKey]))
        #expect(error?.code == .keyNotFound)
        #expect(error?.message.contains("fitting ES256 for a token without kid, found none") == true)
    }

    // MARK: - Headers and claims

    @Test func refusesHeadersThatAreNotObjectsOrHaveNonStringMembers() {
        let payload = Base64URL.encode(Array("{}".utf8))
        let cases: [(String, JOSEError.Code, String)] = [
            (#"["ES256"]"#, .invalidJSON, "a JSON object"),
            (#"{"alg":"ES256","kid":1}"#, .malformedToken, "'kid' to be a string"),
            (#"{"alg":"ES256","typ":true}"#, .malformedToken, "'typ' to be a string"),
        ]
        for (header, code, expected) in cases {
            let compact = Base64URL.encode(Array(header.utf8)) + "." + payload + ".AAAA"
            let error = joseError { () throws(JOSEError) in _ = try JWSVerifier.header(of: compact) }
            #expect(error?.code == code, "\(header)")
            #expect(error?.message.contains(expected) == true, "\(error?.message ?? "accepted")")
            #expect(verifyRefusal(compact)?.code == code)
        }
    }

    @Test func refusesAudiencesAndNoncesOfTheWrongType() {
        let audience = joseError { () throws(JOSEError) in
            try ClaimChecks.checkAudience(JWTClaims(json: ["aud": ["client-123", 5]]), accepted: ["client-123"])
        }
        #expect(audience?.code == .invalidClaim)
        #expect(audience?.claim == "aud")
        let nonce = joseError { () throws(JOSEError) in
            try ClaimChecks.checkNonce(JWTClaims(json: ["nonce": 12]), expected: "12")
        }
        #expect(nonce?.code == .invalidClaim)
        #expect(nonce?.claim == "nonce")
    }

    @Test func readsNotBeforeAsANumericDate() {
        #expect(JWTClaims(json: ["nbf": 1_800_000_000]).notBefore == 1_800_000_000)
        #expect(JWTClaims(json: ["nbf": "soon"]).notBefore == nil)
        #expect(JWTClaims(json: [:]).notBefore == nil)
    }

    // MARK: - JSON

    @Test func readsExponentsWithASign() throws {
        #expect(try JSONValue.parse(Array("[1e+2, 25E-1]".utf8)) == [.double(100), .double(2.5)])
    }

    @Test func parsesAndEncodesBytesHeldInNonContiguousStorage() throws {
        let text = Array(#"{"a":[1,true,null]}"#.utf8)
        #expect(try JSONValue.parse(text.lazy.map { $0 }) == ["a": [1, true, nil]])
        let bytes: [UInt8] = [0xFB, 0xFF, 0x00, 0x41]
        #expect(Base64URL.encode(bytes.lazy.map { $0 }) == Base64URL.encode(bytes))
        #expect(Digest.sha256(bytes.lazy.map { $0 }) == Digest.sha256(bytes))
    }

    @Test func writesLiteralsControlCharactersAndNonFiniteNumbers() {
        let value: JSONValue = ["n": nil, "f": 1.5, "c": .string("\u{01}\u{1F}"), "inf": .double(.infinity)]
        #expect(value.serialized() == #"{"c":"\u0001\u001f","f":1.5,"inf":null,"n":null}"#)
    }
}
