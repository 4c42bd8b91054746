import Testing

@testable import AuthFlowJSON

/// The error `body` throws, or nil when it does not throw.
func jsonError(_ body: () throws(JSONError) -> Void) -> JSONError? {
    do throws(JSONError) {
        try body()
        return nil
    } catch {
        return error
    }
}

@Suite("JSONValue")
struct JSONValueTests {
    @Test func jsonParsesAndSerializesDeterministically() throws {
        let value = try JSONValue.parse(
            Array(#" {"b":[1,-2,3.5,1e3,true,false,null],"a":"x\"\\\/\n\u00e9\ud83d\ude00"} "#.utf8))
        #expect(value["a"]?.stringValue == "x\"\\/\né😀")
        #expect(value["b"]?.arrayValue?[0].int64Value == 1)
        #expect(value["b"]?.arrayValue?[2] == .double(3.5))
        #expect(value.serialized() == #"{"a":"x\"\\/\né😀","b":[1,-2,3.5,1000,true,false,null]}"#)
        #expect(try JSONValue.parse(Array(value.serialized().utf8)).serialized() == value.serialized())
    }

    @Test(arguments: [
        "", "{", "[1,]", "{\"a\":1,}", "01", "1.", "-", "\"\\x\"", "\"a", "{\"a\" 1}", "tru", "[1] 2",
        "{\"a\":1,\"a\":2}", "\"\u{01}\"", "\"\\ud800\"", "nan",
    ])
    func jsonRefusesInvalidText(text: String) {
        let error = jsonError { () throws(JSONError) in _ = try JSONValue.parse(Array(text.utf8)) }
        #expect(error?.code == .invalidJSON)
    }

    @Test func jsonRefusesInvalidUTF8AndDeepNesting() {
        #expect(
            jsonError { () throws(JSONError) in _ = try JSONValue.parse([0x22, 0xFF, 0x22]) }?.code == .invalidJSON)
        let deep = Array(String(repeating: "[", count: 65).utf8) + Array(String(repeating: "]", count: 65).utf8)
        #expect(jsonError { () throws(JSONError) in _ = try JSONValue.parse(deep) }?.code == .invalidJSON)
        let fine = Array(String(repeating: "[", count: 64).utf8) + Array(String(repeating: "]", count: 64).utf8)
        #expect(jsonError { () throws(JSONError) in _ = try JSONValue.parse(fine) } == nil)
    }

    @Test func jsonSerializesMembersInUTF8ByteOrderEvenWhenTheirFirstEightBytesAgree() throws {
        // Names that share their first eight bytes, are prefixes of one another, hold NUL, or are
        // not ASCII (where UTF-8 byte order differs from UTF-16 order).
        let names = [
            "email_verified", "email_verifiec", "email_ver", "email_verified_2", "email", "e", "", "a\u{0}",
            "a", "a\u{0}b", "\u{FF61}", "\u{1F600}", "z", "Z", "é", "eé", "abcdefgh", "abcdefgh\u{0}", "abcdefgi",
        ]
        var object: [String: JSONValue] = [:]
        for (index, name) in names.enumerated() { object[name] = .integer(Int64(index)) }
        let reference = names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        let parsed = try JSONObjectIndex.index(JSONValue.object(object).serializedBytes())
        let order = try #require(parsed).members.map { try #require(parsed).name(of: $0) }
        #expect(order == reference)
    }

    @Test(arguments: [
        Int64.min, Int64.min + 1, -1_000_000_007, -10, -9, -1, 0, 1, 9, 10, 99, 100, 1_700_000_000, Int64.max - 1,
        Int64.max,
    ])
    func jsonWritesIntegersAsTheirDecimalDigits(value: Int64) throws {
        #expect(JSONValue.integer(value).serializedBytes() == Array(String(value).utf8))
        #expect(try JSONValue.parse(JSONValue.integer(value).serializedBytes()) == .integer(value))
    }

    @Test(arguments: [
        JSONValue.string(""), "plain text over eight bytes", "x\"\\/\n\u{1}é😀", .integer(.min), .integer(0),
        .integer(.max), .double(2.5), .double(.nan), .bool(true), .null, [1, "a"], ["b": ["c": 1]],
    ])
    func jsonAppendedToAnArrayIsItsSerialization(value: JSONValue) {
        // Scalars are appended to the array directly, anything else through a buffer: the same bytes either way.
        var output: [UInt8] = [7, 8]
        value.serialize(into: &output)
        #expect(output == [7, 8] + value.serializedBytes())
        #expect(String(decoding: output.dropFirst(2), as: UTF8.self) == value.serialized())
    }

    @Test func jsonKeepsLargeIntegersExactAndOverflowsToDouble() throws {
        #expect(try JSONValue.parse(Array("9223372036854775807".utf8)) == .integer(.max))
        #expect(try JSONValue.parse(Array("-9223372036854775808".utf8)) == .integer(.min))
        #expect(try JSONValue.parse(Array("9223372036854775808".utf8)) == .double(9_223_372_036_854_775_808))
    }

    @Test func refusesStringsWithInvalidUTF8OrUnpairedSurrogates() throws {
        let cases: [([UInt8], String)] = [
            (Array(#"[""#.utf8) + [0xC3, 0x28] + Array(#""]"#.utf8), "invalid UTF-8"),
            (Array(#"["\n"#.utf8) + [0xC3, 0x28] + Array(#""]"#.utf8), "invalid UTF-8"),
            (Array(#"["\uD83D\u0041"]"#.utf8), "a low surrogate after a high surrogate"),
            (Array(#"["\uD83Dxxxxxx"]"#.utf8), "a low surrogate after a high surrogate"),
            (Array(#"["\uDE00"]"#.utf8), "a high surrogate before a low surrogate"),
        ]
        for (bytes, expected) in cases {
            let error = jsonError { () throws(JSONError) in _ = try JSONValue.parse(bytes) }
            #expect(error?.code == .invalidJSON)
            #expect(error?.message.contains(expected) == true, "\(error?.message ?? "accepted")")
        }
        #expect(try JSONValue.parse(Array(#"["\uD83D\uDE00"]"#.utf8)) == ["\u{1F600}"])
    }
}
