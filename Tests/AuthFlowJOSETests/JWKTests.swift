import Testing

@testable import AuthFlowJOSE

@Suite("JWK")
struct JWKTests {
    func refusal(_ json: JSONValue) -> JOSEError? {
        joseError { () throws(JOSEError) in _ = try JWK(json: json) }
    }

    func members(_ key: JWK, includePrivate: Bool = false) -> [String: JSONValue] {
        (includePrivate ? key.exportPrivate() : key.jsonValue()).objectValue ?? [:]
    }

    @Test func roundTripsPublicAndPrivateJSON() throws {
        for key in [TestKeys.rsa, TestKeys.ec, TestKeys.ed] {
            let reparsed = try JWK(json: key.exportPrivate())
            #expect(reparsed == key)
            #expect(reparsed.isPrivate)
            let publicKey = try JWK(json: key.jsonValue())
            #expect(publicKey == key.publicKey)
            #expect(!publicKey.isPrivate)
            #expect(key.jsonValue()["d"] == nil)
            #expect(publicKey.thumbprint() == key.thumbprint())
        }
    }

    /// Found by the JWKS fuzz harness: a long enough `oct` key in a set loads, and it has no public form.
    @Test func symmetricKeyRoundTripsOnlyThroughItsFullExport() throws {
        let secret = Base64URL.encode([UInt8](repeating: 0xBA, count: 160))
        let set = try JWKSet(jsonData: Array(#"{"keys": [{"kty": "oct", "kid": "h", "k": "\#(secret)"}]}"#.utf8))
        let key = try #require(set.keys.first)
        let reparsed = try JWK(json: key.exportPrivate())
        #expect(reparsed == key)
        #expect(reparsed.keyID == "h")
        #expect(key.jsonValue()["k"] == nil)
        #expect(refusal(key.jsonValue()) != nil)
    }

    @Test func descriptionShowsNoKeyMaterial() throws {
        let text = "\(TestKeys.ec)"
        let d = TestKeys.ec.exportPrivate()["d"]?.stringValue ?? "missing"
        #expect(!text.contains(d))
        #expect(text.contains("private"))
    }

    @Test func refusesShortRSAModulus() throws {
        let document = try Fixtures.json("wycheproof/json_web_key_test.json")
        let group = document["testGroups"]?.arrayValue?.first { $0["comment"]?.stringValue == "keysize_too_small" }
        let key = group?["public"]?["keys"]?.arrayValue?.first ?? .null
        #expect(refusal(key)?.code == .weakKey)
    }

    @Test func refusesROCAModulus() throws {
        let document = try Fixtures.json("wycheproof/json_web_key_test.json")
        let group = document["testGroups"]?.arrayValue?.first { $0["comment"]?.stringValue == "jws_rsa_roca_key" }
        let key = group?["public"]?["keys"]?.arrayValue?.first ?? .null
        let error = refusal(key)
        #expect(error?.code == .weakKey)
        #expect(error?.message.contains("ROCA") == true)
        #expect(error?.keyID == "kid-rsa-roca-sign")
    }

    @Test func refusesBadRSAExponents() {
        var rsa = members(TestKeys.rsa)
        rsa["e"] = "AQ"
        #expect(refusal(.object(rsa))?.code == .weakKey)
        rsa["e"] = "AQAC"
        #expect(refusal(.object(rsa))?.code == .weakKey)
        rsa["e"] = "Aw"
        #expect(refusal(.object(rsa)) == nil)
    }

    @Test func refusesPointNotOnCurve() {
        var ec = members(TestKeys.ec)
        var y = (try? Base64URL.decode(ec["y"]?.stringValue ?? "")) ?? []
        y[31] ^= 1
        ec["y"] = .string(Base64URL.encode(y))
        #expect(refusal(.object(ec))?.code == .invalidKey)
    }

    @Test func refusesMismatchedAlgCurveAndType() {
        var ec = members(TestKeys.ec)
        ec["alg"] = "RS256"
        #expect(refusal(.object(ec))?.code == .keyMismatch)
        ec["alg"] = "ES384"
        #expect(refusal(.object(ec))?.code == .keyMismatch)
        ec["alg"] = "ES521"
        #expect(refusal(.object(ec))?.code == .unsupportedAlgorithm)
        ec["alg"] = nil
        ec["crv"] = "P-384"
        #expect(refusal(.object(ec))?.code == .invalidKey)
        ec["crv"] = "secp256k1"
        #expect(refusal(.object(ec))?.code == .invalidKey)
        var wrongType = members(TestKeys.ec)
        wrongType["kty"] = "RSA"
        #expect(refusal(.object(wrongType))?.code == .invalidKey)
    }

    @Test func refusesPrivateHalfThatDoesNotMatch() {
        var ec = members(TestKeys.ec, includePrivate: true)
        ec["d"] = TestKeys.otherEC.exportPrivate()["d"]
        #expect(refusal(.object(ec))?.code == .invalidKey)
        var ed = members(TestKeys.ed, includePrivate: true)
        ed["x"] = .string(Base64URL.encode([UInt8](repeating: 7, count: 32)))
        #expect(refusal(.object(ed))?.code == .invalidKey)
    }

    @Test func refusesShortHMACKeysAndSymmetricKeysInAPublicSet() throws {
        #expect(refusal(["kty": "oct", "k": ""])?.code == .weakKey)
        #expect(
            refusal(["kty": "oct", "k": .string(Base64URL.encode([UInt8](repeating: 1, count: 31)))])?.code == .weakKey)
        #expect(
            refusal(["kty": "oct", "alg": "HS512", "k": .string(Base64URL.encode([UInt8](repeating: 1, count: 48)))])?
                .code == .weakKey)
        let mixed: JSONValue = [
            "keys": [
                TestKeys.ec.jsonValue(),
                ["kty": "oct", "k": .string(Base64URL.encode([UInt8](repeating: 1, count: 32)))],
            ]
        ]
        let error = joseError { () throws(JOSEError) in _ = try JWKSet(jsonData: Array(mixed.serialized().utf8)) }
        #expect(error?.code == .invalidKey)
    }

    @Test func skipsUnknownKeyTypesInASet() throws {
        let document: JSONValue = [
            "keys": [
                ["kty": "AKP", "kid": "pq", "alg": "ML-DSA-99", "pub": "AAAA"],
                ["kty": "WEIRD", "kid": "w"],
                TestKeys.ec.jsonValue(),
            ]
        ]
        let set = try JWKSet(jsonData: Array(document.serialized().utf8))
        #expect(set.keys.count == 1)
        #expect(set.skippedKeys.count == 2)
        #expect(set.skippedKeys.first?.keyID == "pq")
    }

    @Test func reportsWhyANamedKeyWasSkipped() throws {
        let document = try Fixtures.json("wycheproof/json_web_key_test.json")
        let group = document["testGroups"]?.arrayValue?.first { $0["comment"]?.stringValue == "keysize_too_small" }
        let set = try JWKSet(jsonData: Array((group?["public"] ?? .null).serialized().utf8))
        let token = group?["tests"]?.arrayValue?.first?["jws"]?.stringValue ?? ""
        let error = joseError { () throws(JOSEError) in
            _ = try JWSVerifier(allowedAlgorithms: [.rs256]).verify(token, keys: set)
        }
        #expect(error?.code == .weakKey)
        #expect(error?.keyID == "RS256_1024")
    }

    @Test func readsAndWritesPKCS8PEM() throws {
        for key in [TestKeys.rsa, TestKeys.ec, TestKeys.ed] {
            let pem = try key.pkcs8PEM()
            #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))
            let reread = try JWK(pkcs8PEM: pem, keyID: key.keyID)
            #expect(reread == key)
        }
        #expect(joseError { () throws(JOSEError) in _ = try TestKeys.ec.publicKey.pkcs8PEM() }?.code == .invalidKey)
    }

    @Test func readsAnAppleStyleP8Key() throws {
        // Apple's .p8 files are PKCS#8 EC P-256 keys with the public key included.
        let pem = try TestKeys.ec.pkcs8PEM()
        let key = try JWK(pkcs8PEM: pem, keyID: "KEY1234567")
        #expect(key.keyType == "EC")
        #expect(key.defaultAlgorithm == .es256)
        #expect(key.keyID == "KEY1234567")
    }

    @Test func refusesGarbageAndEncryptedPEM() {
        #expect(joseError { () throws(JOSEError) in _ = try JWK(pkcs8PEM: "not a key") }?.code == .invalidKey)
        let encrypted = """
            -----BEGIN ENCRYPTED PRIVATE KEY-----
            MIHsMFcGCSqGSIb3DQEFDTBKMCkGCSqGSIb3DQEFDDAcBAhG1Av8Ye8NRwICCAAw
            -----END ENCRYPTED PRIVATE KEY-----
            """
        #expect(joseError { () throws(JOSEError) in _ = try JWK(pkcs8PEM: encrypted) }?.code == .invalidKey)
    }

    @Test func generatesOnlyStrongRSAKeys() {
        #expect(joseError { () throws(JOSEError) in _ = try JWK.generateRSA(bits: 1024) }?.code == .weakKey)
        #expect(TestKeys.rsa.jsonValue()["n"]?.stringValue?.count == 342)
    }
}
