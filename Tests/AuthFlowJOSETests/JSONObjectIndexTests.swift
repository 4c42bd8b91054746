import Foundation
import Testing

@testable import AuthFlowJOSE

@Suite("JSON object index (headers and claims read member by member)")
struct JSONObjectIndexTests {
    /// What the dictionary-building parser makes of `text`: the object, or the error message.
    func fullParse(_ text: String) -> Result<[String: JSONValue]?, JSONError> {
        do throws(JSONError) {
            return .success(try JSONValue.parse(Array(text.utf8)).objectValue)
        } catch {
            return .failure(error)
        }
    }

    func indexed(_ text: String) -> Result<[String: JSONValue]?, JSONError> {
        do throws(JSONError) {
            return .success(try JSONObjectIndex.index(Array(text.utf8))?.dictionary())
        } catch {
            return .failure(error)
        }
    }

    static let documents: [String] = {
        let many = (0..<40).map { "\"m\($0)\":\($0)" }.joined(separator: ",")
        return [
            #"{}"#, #" { "a" : 1 , "b" : [1, {"c": null}] } "#, #"{"iss":"https:\/\/x","n":-0,"f":1.5e3}"#,
            #"{"\u0069ss":"x","k":"caf\u00e9","é":"é","t":true,"u":false}"#,
            #"{"big":123456789012345678,"bigger":1234567890123456789012,"neg":-9223372036854775808}"#,
            "{\(many)}", "{\(many),\"m3\":1}", "{\(many),\"m\\u0033\":1}",
            "{\"\\u0078\":1,\(many),\"x\":2}", "{\"\\u0078\":1,\"\\u0079\":2,\(many),\"\\u007a\":3}",
            #"{"\u0078":1,"y":2,"\u0079":3}"#,
            // refusals, each of which must get the same message and offset
            #"{"a":1,"a":2}"#, #"{"a":1,"\u0061":2}"#, #"{"\u0061":1,"a":2}"#, #"{"a":{"b":1,"b":2}}"#,
            #"{"a":01}"#, #"{"a":1e999}"#, #"{"a":"\u0001x\"}"#, "{\"a\":\"\u{01}\"}", #"{"a":1}x"#, #"{"a":1,}"#,
            #"{"a" 1}"#, #"{a:1}"#, #"{"a":[1,]}"#, #"{"a":"\ud800"}"#, #"{"a":tru}"#, #"{"a":"x"#, #"{"a":-}"#,
            String(repeating: "[", count: 70) + String(repeating: "]", count: 70),
            "{\"a\":" + String(repeating: "[", count: 70) + String(repeating: "]", count: 70) + "}",
            // valid JSON that is not an object
            #"[1,2]"#, #""text""#, #"42"#,
        ]
    }()

    @Test(arguments: documents)
    func agreesWithTheFullParser(_ text: String) {
        switch (fullParse(text), indexed(text)) {
        case (.success(let full), .success(let index)):
            #expect(full == index)
        case (.failure(let full), .failure(let index)):
            #expect(full.code == index.code)
            #expect(full.message == index.message)
        case (let full, let index):
            Issue.record("full parser gave \(full), index gave \(index)")
        }
    }

    @Test func aSpecialByteAtEveryOffsetOfAWordEndsOrLeavesThePlainScanAsTheFullParserDoes() {
        // The plain-string scan reads eight bytes at a time and stops at the first special byte (a quote,
        // backslash, control or non-ASCII byte); put each one at every offset, with specials after it too.
        let specials = ["\"", "\\n", "\\u0041", "\u{01}", "\u{7F}", "é", "😀", "\"\"", "\\\"x"]
        for special in specials {
            for before in 0..<18 {
                for after in ["", "\"", "\u{01}", "é\""] {
                    let value = String(repeating: "v", count: before) + special + after + "tail"
                    let text = "{\"n\(before)\":\"" + value + "\",\"z\":1}"
                    switch (fullParse(text), indexed(text)) {
                    case (.success(let full), .success(let index)):
                        #expect(full == index, "\(text)")
                        // Read in place only when its bytes are the string itself.
                        let inPlace = try? JSONObjectIndex.index(Array(text.utf8))?.withPlainString("n\(before)") {
                            String(decoding: $0, as: UTF8.self)
                        }
                        if let inPlace { #expect(inPlace == full?["n\(before)"]?.stringValue, "\(text)") }
                    case (.failure(let full), .failure(let index)):
                        #expect(full.message == index.message, "\(text)")
                    case (let full, let index):
                        Issue.record("full parser gave \(full), index gave \(index) for \(text)")
                    }
                }
            }
        }
    }

    @Test func invalidUTF8InAValueIsRefusedAsByTheFullParser() {
        let bytes: [UInt8] = Array(#"{"a":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8)
        let full = Result { () throws(JSONError) in _ = try JSONValue.parse(bytes) }.error
        let index = Result { () throws(JSONError) in _ = try JSONObjectIndex.index(bytes) }.error
        #expect(full?.code == .invalidJSON)
        #expect(index?.message == full?.message)
    }

    @Test func findsMembersByTheirDecodedNames() throws {
        let index = try #require(try JSONObjectIndex.index(Array(#"{"\u0063rit":["x"],"alg":"ES256"}"#.utf8)))
        #expect(index.contains("crit"))
        #expect(!index.contains("\\u0063rit"))
        #expect(index.value("alg") == "ES256")
        #expect(index.value("missing") == nil)
    }

    /// Signs raw header and payload bytes, so names and values can be written with escapes.
    func token(header: String, payload: String, key: JWK = TestKeys.ec) -> String {
        let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(payload.utf8))
        let signature = Array(input.utf8).withUnsafeBufferPointer {
            try! key.signature(over: $0, algorithm: .es256)
        }
        return input + "." + Base64URL.encode(signature)
    }

    func payload(iss: String = #""https:\/\/issuer.example""#, extra: String = "") -> String {
        let now = Int(TestKeys.now.timeIntervalSince1970)
        return #"{"iss":\#(iss),"aud":"client-123","sub":"user-1","iat":\#(now - 10),"exp":\#(now + 600),"#
            + #""nonce":"n-0S6_WzA2Mj""# + extra + "}"
    }

    func verify(_ token: String, issuers: Set<String> = [TestKeys.issuer]) -> JOSEError? {
        let verifier = JWTVerifier(
            allowedAlgorithms: [.es256],
            checks: ClaimChecks(issuers: issuers, audiences: [TestKeys.audience], nonce: "n-0S6_WzA2Mj"))
        return joseError { () throws(JOSEError) in
            _ = try verifier.verify(token, keys: TestKeys.publicSet, now: TestKeys.now)
        }
    }

    let header = #"{"alg":"ES256","kid":"ec-1"}"#

    @Test func claimsWrittenWithEscapesAreCheckedByTheirDecodedValues() {
        #expect(verify(token(header: header, payload: payload())) == nil)
        #expect(verify(token(header: header, payload: payload(iss: #""https:\/\/issuer.exampl\u0065""#))) == nil)
        #expect(
            verify(token(header: header, payload: payload(iss: #""https:\/\/issuer.exampl\u0066""#)))?.code
                == .issuerMismatch)
        let escapedNonce = payload().replacingOccurrences(of: #""n-0S6_WzA2Mj""#, with: #""n-0S6_WzA2M\u006a""#)
        #expect(verify(token(header: header, payload: escapedNonce)) == nil)
        let wrongNonce = payload().replacingOccurrences(of: #""n-0S6_WzA2Mj""#, with: #""n-0S6_WzA2M\u006b""#)
        #expect(verify(token(header: header, payload: wrongNonce))?.code == .nonceMismatch)
        let escapedAudience = payload().replacingOccurrences(of: #""client-123""#, with: #""client-12\u0033""#)
        #expect(verify(token(header: header, payload: escapedAudience)) == nil)
        let escapedName = payload().replacingOccurrences(of: #""iss""#, with: #""\u0069ss""#)
        #expect(verify(token(header: header, payload: escapedName)) == nil)
    }

    @Test func nonASCIIIssuersCompareAsStrings() {
        let issuer = "https://caf\u{E9}.example"
        let decomposed = "https://cafe\u{301}.example"
        #expect(
            verify(token(header: header, payload: payload(iss: #""https://caf\u00e9.example""#)), issuers: [issuer])
                == nil)
        #expect(verify(token(header: header, payload: payload(iss: "\"\(issuer)\"")), issuers: [issuer]) == nil)
        // Swift compares strings by canonical equivalence, with or without the index.
        #expect(verify(token(header: header, payload: payload(iss: "\"\(decomposed)\"")), issuers: [issuer]) == nil)
        // An ASCII value against a non-ASCII accepted issuer is still compared as a string.
        #expect(verify(token(header: header, payload: payload(iss: #""K""#)), issuers: ["\u{212A}"]) == nil)
        #expect(
            verify(token(header: header, payload: payload(iss: #""k""#)), issuers: ["\u{212A}"])?.code
                == .issuerMismatch)
    }

    @Test func aDuplicateClaimSpelledWithAnEscapeIsRefused() {
        let error = verify(token(header: header, payload: payload(extra: #","\u0069ss":"https://other.example""#)))
        #expect(error?.code == .invalidJSON)
    }

    @Test func headerMembersAreRecognisedWhateverTheirSpelling() {
        let crit = #"{"alg":"ES256","kid":"ec-1","\u0063rit":["exp"]}"#
        #expect(verify(token(header: crit, payload: payload()))?.code == .unsupportedCriticalHeader)
        let jwk = #"{"alg":"ES256","kid":"ec-1","j\u0077k":{}}"#
        #expect(verify(token(header: jwk, payload: payload()))?.code == .embeddedKeyRefused)
        let alg = #"{"\u0061lg":"ES256","kid":"ec-1"}"#
        #expect(verify(token(header: alg, payload: payload())) == nil)
        let duplicate = #"{"alg":"ES256","kid":"ec-1","\u0061lg":"none"}"#
        #expect(verify(token(header: duplicate, payload: payload()))?.code == .invalidJSON)
    }

    @Test func parsedClaimsExposeEveryMember() throws {
        let claims = try JWTClaims(payload: Array(payload(extra: #","address":{"country":"FR"},"tags":["a"]"#).utf8))
        let json = claims.json
        #expect(json.count == 8)
        #expect(json["address"] == ["country": "FR"])
        #expect(claims["tags"] == ["a"])
        #expect(claims.issuer == TestKeys.issuer)
    }
}

extension Result {
    /// The failure, or nil for a success.
    fileprivate var error: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
