import Testing

@testable import AuthFlowJOSE

/// The strict CBOR decoder: RFC 8949 Appendix A items it must read, and every refusal with its code and
/// byte offset.
@Suite("CBOR decoder")
struct CBORTests {
    let decoder = CBORDecoder()

    static func hex(_ text: String) -> [UInt8] { Hex.decode(text) ?? [] }

    /// RFC 8949 Appendix A examples within the profile (no floats, tags or indefinite lengths).
    @Test func readsTheRFC8949Examples() throws {
        let examples: [(String, CBORValue)] = [
            ("00", .unsigned(0)), ("17", .unsigned(23)), ("1818", .unsigned(24)), ("1903e8", .unsigned(1000)),
            ("1a000f4240", .unsigned(1_000_000)), ("1b000000e8d4a51000", .unsigned(1_000_000_000_000)),
            ("1bffffffffffffffff", .unsigned(UInt64.max)), ("20", CBORValue(-1)), ("3863", CBORValue(-100)),
            ("3bffffffffffffffff", .negative(UInt64.max)), ("40", .bytes([])), ("4401020304", .bytes([1, 2, 3, 4])),
            ("60", .text("")), ("6449455446", .text("IETF")), ("62c3bc", .text("ü")), ("64f0908591", .text("𐅑")),
            ("f4", .bool(false)), ("f5", .bool(true)), ("f6", .null), ("80", .array([])),
            ("83010203", .array([CBORValue(1), CBORValue(2), CBORValue(3)])),
            ("a0", .map([])),
            ("a201020304", .map([CBORMapEntry(CBORValue(1), CBORValue(2)), CBORMapEntry(CBORValue(3), CBORValue(4))])),
            (
                "a26161016162820203",
                .map([
                    CBORMapEntry(.text("a"), CBORValue(1)),
                    CBORMapEntry(.text("b"), .array([CBORValue(2), CBORValue(3)])),
                ])
            ),
        ]
        for (text, expected) in examples {
            let value = try decoder.decode(Self.hex(text))
            #expect(value == expected, "\(text)")
            #expect(value.encoded() == Self.hex(text), "re-encoding \(text)")
        }
        #expect(CBORValue(-1).intValue == -1 && CBORValue(-257).intValue == -257)
    }

    @Test func refusesEachDepartureWithItsCodeAndOffset() {
        let cases: [(String, CBORError.Code, Int)] = [
            ("1801", .nonCanonical, 0), ("190017", .nonCanonical, 0), ("1a0000ffff", .nonCanonical, 0),
            ("1b00000000ffffffff", .nonCanonical, 0), ("5801ff", .nonCanonical, 0), ("8201b80100", .nonCanonical, 2),
            ("5f4101ff", .indefiniteLength, 0), ("9f01ff", .indefiniteLength, 0), ("bfff", .indefiniteLength, 0),
            ("ff", .indefiniteLength, 0), ("1c", .reserved, 0), ("3e", .reserved, 0), ("1f", .indefiniteLength, 0),
            ("c11a514b67b0", .unsupportedItem, 0), ("f93c00", .unsupportedItem, 0),
            ("fb3ff199999999999a", .unsupportedItem, 0),
            ("f7", .unsupportedItem, 0), ("f0", .unsupportedItem, 0), ("f820", .unsupportedItem, 0),
            ("a2010201ff", .duplicateKey, 3), ("a26161016161f5", .duplicateKey, 4), ("a1410100", .unsupportedKey, 1),
            ("a1f500", .unsupportedKey, 1), ("62c328", .invalidUTF8, 0), ("63eda080", .invalidUTF8, 0),
            ("", .truncated, 0), ("18", .truncated, 0), ("4201", .truncated, 0), ("8301", .truncated, 0),
            ("9bffffffffffffffff", .truncated, 0), ("bbffffffffffffffff", .truncated, 0), ("a101", .truncated, 0),
            ("0000", .trailingBytes, 1),
        ]
        for (text, code, offset) in cases {
            do {
                let value = try decoder.decode(Self.hex(text))
                Issue.record("\(text) decoded to \(value), expected \(code.rawValue)")
            } catch {
                #expect(error.code == code, "\(text): \(error)")
                #expect(error.offset == offset, "\(text): \(error)")
            }
        }
    }

    @Test func capsDepthAndSize() throws {
        let nested16 = [UInt8](repeating: 0x81, count: 16) + [0x00]
        #expect(try decoder.decode(nested16).arrayValue != nil)
        #expect(throws: CBORError.self) { try decoder.decode([0x81] + nested16) }
        do {
            _ = try decoder.decode([UInt8](repeating: 0x81, count: 10_000) + [0x00])
            Issue.record("deep nesting decoded")
        } catch {
            #expect(error.code == .tooDeep && error.offset == 16)
        }
        let large = CBORValue.bytes(Array(repeating: 7, count: 70_000)).encoded()
        do {
            _ = try decoder.decode(large)
            Issue.record("an oversized input decoded")
        } catch {
            #expect(error.code == .tooLarge)
        }
        #expect(try CBORDecoder(maximumBytes: 100_000).decode(large).bytesValue?.count == 70_000)
    }

    @Test func findsWhereAnItemEnds() throws {
        let key = CBORValue.map([CBORMapEntry(CBORValue(1), CBORValue(2))]).encoded()
        let bytes = [0xAA] + key + [0xA0]
        let (value, end) = try decoder.decodeItem(in: bytes, at: 1)
        #expect(value[label: 1] == CBORValue(2))
        #expect(end == 1 + key.count)
        #expect(try decoder.decodeItem(in: bytes, at: end).value == .map([]))
    }

    @Test func encodesMapsInCanonicalOrder() {
        let map = CBORValue.map([
            CBORMapEntry(.text("aa"), CBORValue(1)), CBORMapEntry(CBORValue(-1), CBORValue(2)),
            CBORMapEntry(.text("b"), CBORValue(3)), CBORMapEntry(CBORValue(10), CBORValue(4)),
        ])
        #expect(map.encoded() == Self.hex("a40a0420026162036261610" + "1"))
    }
}
