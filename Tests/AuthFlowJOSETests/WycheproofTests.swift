import Testing

@testable import AuthFlowJOSE

/// Every case of every Wycheproof file in Fixtures/wycheproof, through ``Wycheproof/run``.
@Suite("Wycheproof")
struct WycheproofTests {
    /// Verifies a raw signature the way the JWS layer does, with a key built from a JWK.
    static func verifyRaw(key: JWK, algorithm: JWSAlgorithm, test: JSONValue) -> JOSEError? {
        let message = [UInt8](hex: test["msg"]?.stringValue ?? "")
        let signature = [UInt8](hex: test["sig"]?.stringValue ?? "")
        return Wycheproof.outcome { () throws(JOSEError) in
            let valid = signature.withUnsafeBufferPointer { sig in
                message.withUnsafeBufferPointer { msg in key.verifySignature(sig, over: msg, algorithm: algorithm) }
            }
            if !valid { throw JOSEError(.invalidSignature, "signature does not verify") }
        }
    }

    static func expectClean(_ report: Wycheproof.Report, minimumAccepted: Int = 1) {
        #expect(
            report.failures.isEmpty,
            "\(report.file): \(report.failures.count) failures:\n\(report.failures.joined(separator: "\n"))")
        #expect(report.ran == report.declaredCount)
        #expect(report.accepted >= minimumAccepted)
    }

    @Test func ecdsaP256P1363SignaturesMatchVerdicts() throws {
        let report = try Wycheproof.run("ecdsa_secp256r1_sha256_p1363_test.json") { group, test in
            let key: JWK
            do throws(JOSEError) {
                if let jwk = group["publicKeyJwk"] {
                    key = try JWK(json: jwk)
                } else {
                    // Edge-case keys without a JWK: build one from wx/wy (hex, maybe with a sign byte).
                    func coordinate(_ name: String) -> String {
                        var bytes = [UInt8](hex: group["publicKey"]?[name]?.stringValue ?? "")
                        while bytes.count > 32, bytes.first == 0 { bytes.removeFirst() }
                        while bytes.count < 32 { bytes.insert(0, at: 0) }
                        return Base64URL.encode(bytes)
                    }
                    key = try JWK(json: [
                        "kty": "EC", "crv": "P-256", "x": .string(coordinate("wx")), "y": .string(coordinate("wy")),
                    ])
                }
            } catch {
                return error
            }
            return Self.verifyRaw(key: key, algorithm: .es256, test: test)
        }
        Self.expectClean(report)
    }

    @Test func rsaPKCS1v15SignaturesMatchVerdicts() throws {
        let report = try Wycheproof.run("rsa_signature_2048_sha256_test.json") { group, test in
            do throws(JOSEError) {
                let key = try JWK(json: group["keyJwk"] ?? .null)
                return Self.verifyRaw(key: key, algorithm: .rs256, test: test)
            } catch {
                return error
            }
        }
        Self.expectClean(report)
    }

    @Test func rsaPSSSignaturesMatchVerdicts() throws {
        let report = try Wycheproof.run("rsa_pss_2048_sha256_mgf1_32_test.json") { group, test in
            do throws(JOSEError) {
                let key = try JWK(json: group["publicKeyJwk"] ?? .null)
                return Self.verifyRaw(key: key, algorithm: .ps256, test: test)
            } catch {
                return error
            }
        }
        Self.expectClean(report)
    }

    @Test func ed25519SignaturesMatchVerdicts() throws {
        let report = try Wycheproof.run("ed25519_test.json") { group, test in
            do throws(JOSEError) {
                let key = try JWK(json: group["publicKeyJwk"] ?? .null)
                return Self.verifyRaw(key: key, algorithm: .edDSA, test: test)
            } catch {
                return error
            }
        }
        Self.expectClean(report)
    }

    /// Deviations, each forced by a stated AuthFlow policy:
    /// - 346, 350: the key carries `alg: PS256` but the token is PS384. AuthFlow binds the
    ///   algorithm to the key's `alg`, so this is `keyMismatch`.
    /// - 347, 351: the key carries `alg: ES521`, which is not a JWS algorithm; keys with an unknown
    ///   `alg` are refused (`unsupportedAlgorithm`).
    /// - 372, 373: a `?` inside the signed header/payload text. Strict base64url refuses any
    ///   character outside the alphabet (`invalidBase64URL`).
    /// - 367, 370: marked invalid, but byte-for-byte the same token as the valid tcId 357 (checked
    ///   in ``paddingVectorsDuplicateAValidToken``); no verifier can satisfy both, AuthFlow accepts.
    static let jwsDeviations: [Int: Wycheproof.Deviation] = [
        346: .refused(.keyMismatch), 350: .refused(.keyMismatch),
        347: .refused(.unsupportedAlgorithm), 351: .refused(.unsupportedAlgorithm),
        372: .refused(.invalidBase64URL), 373: .refused(.invalidBase64URL),
        367: .accepted, 370: .accepted,
    ]

    @Test func paddingVectorsDuplicateAValidToken() throws {
        let document = try Fixtures.json("wycheproof/json_web_signature_test.json")
        var tokens: [Int64: String] = [:]
        for group in document["testGroups"]?.arrayValue ?? [] {
            for test in group["tests"]?.arrayValue ?? [] {
                if let id = test["tcId"]?.int64Value, [357, 367, 370].contains(id) {
                    tokens[id] = test["jws"]?.stringValue
                }
            }
        }
        #expect(tokens.count == 3)
        #expect(tokens[367] == tokens[357])
        #expect(tokens[370] == tokens[357])
    }

    @Test func jsonWebSignaturesMatchVerdicts() throws {
        let verifier = JWSVerifier(allowedAlgorithms: Set(JWSAlgorithm.allCases))
        let report = try Wycheproof.run("json_web_signature_test.json", deviations: Self.jwsDeviations) { group, test in
            Wycheproof.outcome { () throws(JOSEError) in
                let key = try JWK(json: group["public"] ?? group["private"] ?? .null)
                _ = try verifier.verify(test["jws"]?.stringValue ?? "", keys: JWKSet(keys: [key]))
            }
        }
        Self.expectClean(report)
    }

    @Test func jsonWebKeySetsMatchVerdicts() throws {
        let verifier = JWSVerifier(allowedAlgorithms: Set(JWSAlgorithm.allCases))
        let report = try Wycheproof.run("json_web_key_test.json") { group, test in
            Wycheproof.outcome { () throws(JOSEError) in
                let set = try JWKSet(jsonData: Array((group["public"] ?? group["private"] ?? .null).serialized().utf8))
                _ = try verifier.verify(test["jws"]?.stringValue ?? "", keys: set)
            }
        }
        Self.expectClean(report)
    }
}
