import Testing

@testable import AuthFlowJOSE

/// Every vector of Fixtures/rfc-vectors.json (RFC 7515, 7520, 7636, 7638 known answers).
@Suite("RFC known-answer vectors")
struct RFCVectorTests {
    static func octets(_ value: JSONValue?) -> [UInt8] {
        (value?.arrayValue ?? []).compactMap { $0.int64Value.map { UInt8(truncatingIfNeeded: $0) } }
    }

    /// Checks one vector; returns the problems found.
    static func check(_ vector: JSONValue) throws -> [String] {
        let id = vector["id"]?.stringValue ?? "?"
        let inputs = vector["inputs"] ?? .null
        let expected = vector["expected"] ?? .null
        var problems: [String] = []
        func expectEqual<T: Equatable>(_ a: T, _ b: T, _ what: String) {
            if a != b { problems.append("\(id): \(what): \(a) != \(b)") }
        }
        let all = JWSVerifier(allowedAlgorithms: Set(JWSAlgorithm.allCases))
        switch id {
        case "rfc7515-A.1-HS256":
            let key = try JWK(json: inputs["jwk"] ?? .null)
            let header = octets(inputs["protected_header_octets"])
            let payload = octets(inputs["payload_octets"])
            expectEqual(Base64URL.encode(header), expected["protected_b64u"]?.stringValue ?? "", "protected_b64u")
            expectEqual(Base64URL.encode(payload), expected["payload_b64u"]?.stringValue ?? "", "payload_b64u")
            let input = Array("\(Base64URL.encode(header)).\(Base64URL.encode(payload))".utf8)
            guard case .oct(let k) = key.material else { return ["\(id): not an oct key"] }
            expectEqual(Digest.hmacSHA256(key: k, message: input), octets(expected["signature_octets"]), "HMAC")
            let verified = try all.verify(expected["compact"]?.stringValue ?? "", keys: JWKSet(keys: [key]))
            expectEqual(verified.payload, payload, "payload")
        case "rfc7515-A.2-RS256":
            let publicKey = try JWK(json: inputs["public_jwk"] ?? .null)
            let privateKey = try JWK(json: inputs["private_jwk"] ?? .null)
            let compact = expected["compact"]?.stringValue ?? ""
            _ = try all.verify(compact, keys: JWKSet(keys: [publicKey]))
            // RS256 is deterministic: re-signing reproduces the RFC's bytes.
            let resigned = try JWS.sign(
                payload: Array((inputs["payload_utf8"]?.stringValue ?? "").utf8), key: privateKey, algorithm: .rs256)
            expectEqual(resigned, compact, "re-signed compact")
        case "rfc7515-A.3-ES256":
            let key = try JWK(json: inputs["public_jwk"] ?? .null)
            let compact = expected["compact"]?.stringValue ?? ""
            expectEqual(
                Base64URL.encode(octets(expected["signature_R_octets"]) + octets(expected["signature_S_octets"])),
                expected["signature_b64u"]?.stringValue ?? "", "r‖s encoding")
            _ = try all.verify(compact, keys: JWKSet(keys: [key]))
            // Flipping one bit of R must break it.
            var raw = octets(expected["signature_R_octets"]) + octets(expected["signature_S_octets"])
            raw[0] ^= 0x01
            let parts = compact.split(separator: ".")
            let tampered = "\(parts[0]).\(parts[1]).\(Base64URL.encode(raw))"
            do {
                _ = try all.verify(tampered, keys: JWKSet(keys: [key]))
                problems.append("\(id): a flipped bit of R verified")
            } catch {
                expectEqual(error.code, .invalidSignature, "flipped R")
            }
            // A fresh signature by the private key verifies under the public key.
            let privateKey = try JWK(json: inputs["private_jwk"] ?? .null)
            let fresh = try JWS.sign(payload: Array("hello".utf8), key: privateKey, algorithm: .es256)
            _ = try all.verify(fresh, keys: JWKSet(keys: [key]))
        case "rfc7515-A.5-none":
            do {
                _ = try all.verify(expected["compact"]?.stringValue ?? "", keys: JWKSet(keys: []))
                problems.append("\(id): alg none accepted")
            } catch {
                expectEqual(error.code, .unsignedTokenNotAllowed, "alg none")
            }
        case "rfc7520-4.1-RS256", "rfc7520-4.3-ES512", "rfc7520-4.4-HS256":
            let key = try JWK(json: inputs["public_jwk"] ?? inputs["jwk"] ?? .null)
            let compact = expected["compact"]?.stringValue ?? ""
            let verified = try all.verify(compact, keys: JWKSet(keys: [key]))
            expectEqual(Base64URL.encode(verified.payload), inputs["payload_b64u"]?.stringValue ?? "", "payload")
            expectEqual(
                compact.split(separator: ".").last.map(String.init) ?? "",
                expected["signature_b64u"]?.stringValue ?? "", "signature")
        case "rfc7636-B-S256":
            let random = FixedRandom(octets(inputs["verifier_random_octets"]))
            let pkce = PKCE.generate(random: random)
            expectEqual(pkce.verifier, expected["code_verifier"]?.stringValue ?? "", "verifier")
            expectEqual(pkce.challenge, expected["code_challenge"]?.stringValue ?? "", "challenge")
            expectEqual(pkce.method, expected["code_challenge_method"]?.stringValue ?? "", "method")
            expectEqual(
                Digest.sha256(Array(pkce.verifier.utf8)), octets(expected["sha256_of_verifier_octets"]), "sha256")
            expectEqual(try PKCE(verifier: pkce.verifier), pkce, "re-wrapped verifier")
        case "rfc7638-3.1-RSA-thumbprint", "rfc7517-A.1-EC-thumbprint":
            let key = try JWK(json: inputs["jwk"] ?? .null)
            expectEqual(key.thumbprintInput(), expected["canonical_json"]?.stringValue ?? "", "canonical JSON")
            expectEqual(key.thumbprint(), expected["sha256_b64u"]?.stringValue ?? "", "thumbprint")
        default:
            problems.append("\(id): no check written for this vector")
        }
        return problems
    }

    @Test func everyVectorPasses() throws {
        let document = try Fixtures.json("rfc-vectors.json")
        let vectors = document["vectors"]?.arrayValue ?? []
        #expect(vectors.count == 10)
        var problems: [String] = []
        for vector in vectors {
            do {
                problems += try Self.check(vector)
            } catch {
                problems.append("\(vector["id"]?.stringValue ?? "?"): threw \(error)")
            }
        }
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }
}

/// Returns preset bytes (then zeros), for exact PKCE tests.
struct FixedRandom: SecureRandom {
    let octets: [UInt8]
    init(_ octets: [UInt8]) { self.octets = octets }
    func bytes(_ count: Int) -> [UInt8] { Array((octets + [UInt8](repeating: 0, count: count)).prefix(count)) }
}
