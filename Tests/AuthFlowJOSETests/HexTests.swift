import Testing

@testable import AuthFlowJOSE

@Suite struct HexTests {
    @Test func encodesKnownVectors() {
        // RFC 4648 §10 (base16), lowercased.
        #expect(Hex.encode([UInt8]()) == "")
        #expect(Hex.encode(Array("f".utf8)) == "66")
        #expect(Hex.encode(Array("foobar".utf8)) == "666f6f626172")
        #expect(Hex.encode([0x00, 0x0F, 0x10, 0x7F, 0x80, 0xAB, 0xFF]) == "000f107f80abff")
        // FIPS 180-2 SHA-256("abc").
        #expect(
            Hex.encode(Digest.sha256(Array("abc".utf8)))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func encodesAnySequence() {
        #expect(Hex.encode([0xDE, 0xAD, 0xBE, 0xEF].prefix(2)) == "dead")
        #expect(Hex.encode((0...3).lazy.map { UInt8($0 * 0x11) }) == "00112233")
    }

    @Test func writesIntoABufferInPlace() {
        let bytes: [UInt8] = [0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF]
        let text = bytes.withUnsafeBufferPointer { source in
            String(unsafeUninitializedCapacity: 20) { output in
                output.initialize(repeating: UInt8(ascii: "-"))
                Hex.write(source, to: output)
                return 20
            }
        }
        #expect(text == "0123456789abcdef----")
    }

    @Test func decodesEitherCaseAndRoundTrips() {
        #expect(Hex.decode("666F6F626172") == Array("foobar".utf8))
        #expect(Hex.decode("000f107f80abff") == [0x00, 0x0F, 0x10, 0x7F, 0x80, 0xAB, 0xFF])
        #expect(Hex.decode("") == [])
        let bytes = (0...255).map { UInt8($0) }
        #expect(Hex.decode(Hex.encode(bytes)) == bytes)
    }

    @Test(arguments: ["0", "abc", "0g", "g0", " 00", "00 ", "0x00", "\u{e9}\u{e9}"])
    func refusesWhatIsNotHex(text: String) {
        #expect(Hex.decode(text) == nil)
    }
}
