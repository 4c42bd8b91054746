import Foundation
import Testing

@testable import AuthFlowJOSE

/// The JWT path reads plain values in place (strings without escapes, short integers, the
/// signature in temporary storage). Each fast path must accept and refuse exactly what the
/// ordinary path does: these tests run both on the same input and compare the outcome.
@Suite("JWT fast paths")
struct JWTFastPathTests {
    let checks = ClaimChecks(issuers: [TestKeys.issuer], audiences: [TestKeys.audience], nonce: "n-0S6_WzA2Mj")
    let now = TestKeys.now
    var nowSeconds: Int64 { Int64(now.timeIntervalSince1970) }

    /// The outcome of the claim checks: nil, or the error's code, claim and message.
    func outcome(_ claims: JWTClaims) -> String? {
        joseError { () throws(JOSEError) in try checks.validate(claims, now: now) }
            .map { "\($0.code) \($0.claim ?? "-") \($0.message)" }
    }

    /// Checks `payload` through the index (fast paths) and through a dictionary (no fast path).
    func bothOutcomes(_ payload: String) throws -> (indexed: String?, dictionary: String?) {
        let bytes = Array(payload.utf8)
        let indexed = try JWTClaims(payload: bytes)
        let dictionary = JWTClaims(json: try #require(try JSONValue.parse(bytes).objectValue))
        return (outcome(indexed), outcome(dictionary))
    }

    func payload(_ replacing: [String: String]) -> String {
        var members = [
            "iss": #""https://issuer.example""#, "aud": #""client-123""#, "sub": #""user-1""#,
            "iat": "\(nowSeconds - 10)", "exp": "\(nowSeconds + 600)", "nonce": #""n-0S6_WzA2Mj""#,
        ]
        for (name, value) in replacing { members[name] = value }
        return "{" + members.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ",") + "}"
    }

    @Test(arguments: [
        "1800000600", "1800000600.0", "1.8000006e9", "18000006E2", "-0", "0", "-1800000600", "1799999000",
        "999999999999999999", "1000000000000000000", "-999999999999999999", "99999999999999999999",
        "1799999999.5", #""1800000600""#, "null", "true", "[1800000600]", #"{"s":1800000600}"#,
    ])
    func numericDatesReadInPlaceMatchTheDecodedValue(value: String) throws {
        for claim in ["exp", "iat", "nbf"] {
            let (indexed, dictionary) = try bothOutcomes(payload([claim: value]))
            #expect(indexed == dictionary, "\(claim): \(value)")
        }
    }

    @Test func expiredAndFutureTimesWrittenAsPlainIntegersAreRefused() throws {
        let expired = try bothOutcomes(payload(["exp": "\(nowSeconds - 61)"]))
        #expect(expired.indexed?.hasPrefix("token_expired exp") == true)
        #expect(expired.indexed == expired.dictionary)
        let notYet = try bothOutcomes(payload(["nbf": "\(nowSeconds + 61)"]))
        #expect(notYet.indexed?.hasPrefix("token_not_yet_valid nbf") == true)
        let future = try bothOutcomes(payload(["iat": "\(nowSeconds + 61)"]))
        #expect(future.indexed?.hasPrefix("issued_in_future iat") == true)
        #expect(try bothOutcomes(payload(["exp": #""1800000600""#])).indexed?.hasPrefix("invalid_claim exp") == true)
    }

    @Test func numericDatesBeyondIntAreRefusedWithAMessageNotATrap() throws {
        let notYet = try bothOutcomes(payload(["nbf": "1e20"]))
        #expect(notYet.indexed?.hasPrefix("token_not_yet_valid nbf") == true)
        #expect(notYet.indexed?.contains("e+19 s in the future") == true)
        let future = try bothOutcomes(payload(["iat": "99999999999999999999"]))
        #expect(future.indexed?.hasPrefix("issued_in_future iat") == true)
        let expired = try bothOutcomes(payload(["exp": "-1e300"]))
        #expect(expired.indexed?.hasPrefix("token_expired exp") == true)
        #expect(expired.indexed == expired.dictionary)
    }

    @Test(arguments: [
        #""https://issuer.example""#, #""https:\/\/issuer.example""#, #""https://issuer.exampl\u0065""#,
        #""https://issuer.example ""#, #""https://issuer.exampl""#, #""https://issuer.éxample""#, #""""#, "42", "null",
        #"["https://issuer.example"]"#,
    ])
    func issuersReadInPlaceMatchTheDecodedValue(value: String) throws {
        let (indexed, dictionary) = try bothOutcomes(payload(["iss": value]))
        #expect(indexed == dictionary, "iss: \(value)")
    }

    @Test(arguments: [
        #""client-123""#, #""client-12\u0033""#, #""client-1234""#, #""Client-123""#, #""clïent-123""#,
        #"["client-123"]"#, #"["other","client-123"]"#, #"["other"]"#, #"["client-123",7]"#, "7", "null", #""""#,
    ])
    func audiencesReadInPlaceMatchTheDecodedValue(value: String) throws {
        for azp in [nil, #""client-123""#, #""client-12\u0033""#, #""other""#, "12"] as [String?] {
            var replacing = ["aud": value]
            if let azp { replacing["azp"] = azp }
            let (indexed, dictionary) = try bothOutcomes(payload(replacing))
            #expect(indexed == dictionary, "aud: \(value), azp: \(azp ?? "absent")")
        }
    }

    @Test(arguments: [
        #""n-0S6_WzA2Mj""#, #""n-0S6_WzA2M\u006a""#, #""n-0S6_WzA2Mk""#, #""n-0S6_WzA2Mj ""#, #""n-0S6_WzA2Mé""#,
        #""""#, "1", "null",
    ])
    func noncesReadInPlaceMatchTheDecodedValue(value: String) throws {
        let (indexed, dictionary) = try bothOutcomes(payload(["nonce": value]))
        #expect(indexed == dictionary, "nonce: \(value)")
    }

    @Test func aNonASCIIAcceptedValueIsStillComparedAsAString() throws {
        // U+212A KELVIN SIGN is canonically equivalent to "K": an ASCII value that differs byte-wise
        // from a non-ASCII accepted value is compared as a string, not refused on its bytes.
        let kelvin = ClaimChecks(issuers: ["\u{212A}", "https://other.example"])
        let upper = try JWTClaims(payload: Array(#"{"iss":"K","exp":1800000600,"iat":1799999990}"#.utf8))
        #expect(joseError { () throws(JOSEError) in try kelvin.validate(upper, now: now) } == nil)
        let lower = try JWTClaims(payload: Array(#"{"iss":"k","exp":1800000600,"iat":1799999990}"#.utf8))
        let refused = joseError { () throws(JOSEError) in try kelvin.validate(lower, now: now) }
        #expect(refused?.code == .issuerMismatch)
    }

    @Test func headerStringsReadInPlaceMatchTheDecodedValue() throws {
        let plain = try JWSHeader(bytes: Array(#"{"alg":"ES256","kid":"ec-1","typ":"JWT"}"#.utf8))
        let escaped = try JWSHeader(bytes: Array(#"{"alg":"ES25\u0036","kid":"ec\u002d1","typ":"J\/WT"}"#.utf8))
        #expect(plain.algorithm == "ES256" && escaped.algorithm == "ES256")
        #expect(plain.keyID == "ec-1" && escaped.keyID == "ec-1")
        #expect(plain.type == "JWT" && escaped.type == "J/WT")
        let nonASCII = try JWSHeader(bytes: Array(#"{"alg":"ES256é","kid":"ké"}"#.utf8))
        #expect(nonASCII.algorithm == "ES256é" && nonASCII.keyID == "ké" && nonASCII.type == nil)
        for header in [
            #"{"alg":256}"#, #"{"kid":"ec-1"}"#, #"{"alg":"ES256","kid":1}"#, #"{"alg":"ES256","typ":["JWT"]}"#,
            #"{"alg":null}"#, #"{"alg":"ES256","kid":null}"#,
        ] {
            let error = joseError { () throws(JOSEError) in _ = try JWSHeader(bytes: Array(header.utf8)) }
            #expect(error?.code == .malformedToken, "\(header)")
        }
    }

    @Test func refusedHeaderMembersFoundInOnePassMatchOneLookupEach() throws {
        let list = JWSVerifier.refusedHeaders
        let names = ["crit", "jwk", "jku", "x5u", "x5c"]
        for header in [
            #"{"alg":"ES256"}"#, #"{"alg":"ES256","crit":["b64"]}"#, #"{"x5c":[],"alg":"ES256","jku":"u"}"#,
            #"{"\u0063rit":[],"j\u0077k":{},"x5\u0075":"u"}"#, #"{"crit":1,"jwk":1,"jku":1,"x5u":1,"x5c":1}"#,
            #"{"critical":1,"jw":1,"x5c ":1,"X5C":1}"#,
        ] {
            let index = try #require(try JSONObjectIndex.index(Array(header.utf8)))
            let presence = index.presence(of: list)
            for (offset, name) in names.enumerated() {
                #expect((presence & (1 << UInt64(offset)) != 0) == index.contains(name), "\(header) \(name)")
            }
            #expect(presence >> UInt64(names.count) == 0)
        }
        // With several refused members the first in the fixed order is reported.
        let both = TestKeys.token(
            header: ["alg": "ES256", "kid": "ec-1", "x5c": [], "jwk": "k"], payload: Array("{}".utf8), key: TestKeys.ec,
            algorithm: .es256)
        let error = joseError { () throws(JOSEError) in
            _ = try JWSVerifier(allowedAlgorithms: [.es256]).verify(both, keys: TestKeys.publicSet)
        }
        #expect(error?.code == .embeddedKeyRefused)
        #expect(error?.message.contains("'jwk'") == true)
    }

    @Test func theAllowListAsABitSetAcceptsExactlyTheAllowedAlgorithms() throws {
        let all = JWSAlgorithm.allCases
        #expect(Set(all.map(\.ordinal)) == Set(0..<all.count))
        let subsets: [Set<JWSAlgorithm>] = [[], [.rs256], [.es256, .ps512], Set(all), JWSAlgorithm.asymmetric]
        for allowed in subsets + all.map({ [$0] }) {
            let verifier = JWSVerifier(allowedAlgorithms: allowed)
            for algorithm in all {
                let header = try JWSHeader(bytes: Array(#"{"alg":"\#(algorithm.rawValue)"}"#.utf8))
                let error = joseError { () throws(JOSEError) in _ = try verifier.checkHeader(header) }
                #expect((error == nil) == allowed.contains(algorithm), "\(allowed) \(algorithm)")
                if let error { #expect(error.code == .algorithmNotAllowed) }
            }
        }
    }

    @Test func aMalformedSignatureIsRefusedBeforeTheHeaderIsChecked() {
        let verifier = JWSVerifier(allowedAlgorithms: [.es256])
        let payload = Base64URL.encode(Array(#"{"sub":"x"}"#.utf8))
        for header in [#"{"alg":"none"}"#, #"{"alg":"HS256","kid":"ec-1"}"#, #"{"alg":"ES256","kid":"nobody"}"#] {
            for signature in ["A", "AAAA=", "AA AA", "AAA*"] {
                let token = Base64URL.encode(Array(header.utf8)) + "." + payload + "." + signature
                let error = joseError { () throws(JOSEError) in
                    _ = try verifier.verify(token, keys: TestKeys.publicSet)
                }
                #expect(error?.code == .invalidBase64URL, "\(header) \(signature)")
            }
        }
    }

    @Test func signaturesDecodedInTemporaryStorageMatchTheDecodedArray() throws {
        for length in 0..<40 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 91 &+ 7) }
            let text = Array(Base64URL.encode(bytes).utf8)
            let decoded = try text.withUnsafeBufferPointer { input throws(JOSEError) in
                try Base64URL.withDecoded(buffer: input) { Array($0) }
            }
            #expect(decoded == bytes)
        }
        for text in ["A", "AAAAA", "AA=A", "AAA\n", "AB"] {
            let input = Array(text.utf8)
            let array = joseError { () throws(JOSEError) in
                _ = try input.withUnsafeBufferPointer { buffer throws(JOSEError) in try Base64URL.decode(buffer: buffer)
                }
            }
            var bodyRan = false
            let temporary = joseError { () throws(JOSEError) in
                try input.withUnsafeBufferPointer { buffer throws(JOSEError) in
                    try Base64URL.withDecoded(buffer: buffer) { _ in bodyRan = true }
                }
            }
            #expect(array != nil && temporary?.message == array?.message, "\(text)")
            #expect(!bodyRan)
        }
    }

    @Test func base64URLNamesTheOffendingOffsetAtEveryPosition() {
        // The decoder reads two quanta at a time; the offset must still be that of the character itself.
        let valid = Array("QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo".utf8)
        for length in [8, 9, 11, 16, 19, 24, 34] {
            for position in 0..<length {
                for bad in ["=", " ", "+", "é"] {
                    var text = Array(valid.prefix(length))
                    text[position] = Array(bad.utf8)[0]
                    let error = joseError { () throws(JOSEError) in
                        _ = try text.withUnsafeBufferPointer { b throws(JOSEError) in try Base64URL.decode(buffer: b) }
                    }
                    if length % 4 == 1 {
                        #expect(error?.message.contains("1 modulo 4") == true)
                    } else {
                        #expect(error?.code == .invalidBase64URL)
                        #expect(error?.message.hasSuffix("at offset \(position)") == true, "\(length) \(position)")
                    }
                }
            }
        }
    }

    @Test func ecdsaSignaturesInDERMatchAReferenceEncoding() {
        var generator = SystemRandomNumberGenerator()
        var cases: [[UInt8]] = [
            [UInt8](repeating: 0, count: 64), [UInt8](repeating: 0xFF, count: 64),
            [UInt8](repeating: 0, count: 31) + [1] + [0x80] + [UInt8](repeating: 0, count: 31),
            [0, 0x7F] + [UInt8](repeating: 0x11, count: 30) + [0, 0, 0x80] + [UInt8](repeating: 0x22, count: 29),
        ]
        for _ in 0..<200 { cases.append((0..<64).map { _ in UInt8.random(in: 0...255, using: &generator) }) }
        for raw in cases {
            let der = raw.withUnsafeBufferPointer { ECDSASignatureEncoding.der(fromRaw: $0, half: 32) }
            #expect(der == Self.referenceDER(raw, half: 32))
            let back = der.withUnsafeBufferPointer { ECDSASignatureEncoding.raw(fromDER: $0, half: 32) }
            #expect(back == raw)
        }
        let p521 = (0..<132).map { _ in UInt8.random(in: 0...255, using: &generator) }
        #expect(
            p521.withUnsafeBufferPointer { ECDSASignatureEncoding.der(fromRaw: $0, half: 66) }
                == Self.referenceDER(p521, half: 66))
        #expect(
            [UInt8](repeating: 1, count: 63).withUnsafeBufferPointer {
                ECDSASignatureEncoding.der(fromRaw: $0, half: 32)
            }.isEmpty)
    }

    /// DER `ECDSA-Sig-Value` written the plain way, with arrays.
    static func referenceDER(_ raw: [UInt8], half: Int) -> [UInt8] {
        func length(_ count: Int) -> [UInt8] {
            count < 0x80
                ? [UInt8(count)]
                : count < 0x100 ? [0x81, UInt8(count)] : [0x82, UInt8(count >> 8), UInt8(count & 0xFF)]
        }
        func integer(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
            var value = Array(bytes.drop { $0 == 0 })
            if value.isEmpty { value = [0] }
            if value[0] & 0x80 != 0 { value.insert(0, at: 0) }
            return [0x02] + length(value.count) + value
        }
        let content = integer(raw[0..<half]) + integer(raw[half...])
        return [0x30] + length(content.count) + content
    }

    @Test func claimsSignedFromOneBufferMatchTheGeneralSerializerAndHeader() throws {
        // HMAC signatures are deterministic, so the whole token can be compared. The claims cover
        // escapes, non-ASCII names and values, names sharing eight bytes, nesting, doubles, and
        // enough bytes that the buffer grows (beyond 1 KiB).
        let key = try JWK.symmetric([UInt8](repeating: 7, count: 32), keyID: "h\"1")
        var claims: [String: JSONValue] = [
            "iss": "https://issuer.example", "email_verified": true, "email_verifiec": false, "email": .null,
            "é": "x\"\\/\n\u{1}é😀", "\u{1F600}": [1, -2, 3.5, 1e300, ["a": ["b": []]]], "iat": .integer(.min),
            "exp": .integer(.max), "n": .double(.infinity), "long": .string(String(repeating: "abc\t", count: 400)),
        ]
        for index in 0..<40 { claims["member-\(index)"] = .integer(Int64(index) * 1_000_003) }
        let token = try JWT.sign(claims: claims, key: key, algorithm: .hs256)
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        #expect(parts.count == 3)
        #expect(try Base64URL.decode(parts[1]) == JSONValue.object(claims).serializedBytes())
        #expect(try Base64URL.decode(parts[1]).count > 1024)
        // The header written directly equals the one the sorted member list writes.
        let header = try Base64URL.decode(parts[0])
        #expect(header == Array(#"{"alg":"HS256","kid":"h\"1","typ":"JWT"}"#.utf8))
        let general = try JWS.sign(
            payload: JSONValue.object(claims).serializedBytes(), key: key, algorithm: .hs256,
            extraHeader: ["typ": "JWT"])
        #expect(general == token)
        let claimsBack = try JSONValue.parse(try Base64URL.decode(parts[1]))
        #expect(claimsBack == .object(claims.merging(["n": .null]) { _, new in new }))
    }

    @Test func oneRSAKeyKeepsSeparateContextsPerAlgorithmAndDirection() throws {
        let verifier = JWSVerifier(allowedAlgorithms: [.rs256, .ps256, .rs384, .ps512])
        let payload = Array(#"{"sub":"x"}"#.utf8)
        for round in 0..<3 {
            for algorithm in [JWSAlgorithm.rs256, .ps256, .rs384, .ps512] {
                let token = try JWS.sign(payload: payload, key: TestKeys.rsa, algorithm: algorithm)
                #expect(
                    try verifier.verify(token, keys: TestKeys.publicSet).payload == payload, "\(round) \(algorithm)")
                // A token signed under one algorithm never verifies under another on the same key.
                let parts = token.split(separator: ".")
                let header = Base64URL.encode(Array(#"{"alg":"RS256","kid":"rsa-1"}"#.utf8))
                let swapped = header + "." + parts[1] + "." + parts[2]
                if algorithm != .rs256 {
                    let error = joseError { () throws(JOSEError) in
                        _ = try verifier.verify(swapped, keys: TestKeys.publicSet)
                    }
                    #expect(error?.code == .invalidSignature)
                }
            }
        }
    }
}
