@testable import AuthFlowJOSE
import Testing

@Suite struct TokenCipherTests {
    static func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let high = iterator.next(), let low = iterator.next() {
            bytes.append(UInt8(hexDigit(high) << 4 | hexDigit(low)))
        }
        return bytes
    }

    private static func hexDigit(_ c: UInt8) -> UInt8 { c <= 57 ? c - 48 : (c | 0x20) - 87 }

    // RFC 5869 appendix A.1 (test case 1).
    @Test func hkdfMatchesRFC5869TestCase1() throws {
        let okm = AESGCM.deriveKey(
            secret: [UInt8](repeating: 0x0b, count: 22), salt: Array(0...12), info: Array(0xf0...0xf9), length: 42)
        #expect(
            okm
                == Self.hex(
                    "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"))
    }

    // The GCM specification's AES-256 test case 16 (McGrew and Viega), also used by NIST's GCM validation.
    @Test func aesGCMMatchesTestCase16() throws {
        let key = Self.hex("feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308")
        let nonce = Self.hex("cafebabefacedbaddecaf888")
        let plaintext = Self.hex(
            "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525"
                + "b16aedf5aa0de657ba637b39")
        let aad = Self.hex("feedfacedeadbeeffeedfacedeadbeefabaddad2")
        let sealed = try #require(AESGCM.seal(key: key, nonce: nonce, plaintext: plaintext, associatedData: aad))
        #expect(
            sealed.ciphertext
                == Self.hex(
                    "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838"
                        + "c5f61e6393ba7a0abcc9f662"))
        #expect(sealed.tag == Self.hex("76fc6ece0f4e1768cddf8853bb2d551b"))
        let opened = AESGCM.open(
            key: key, nonce: nonce, ciphertext: sealed.ciphertext[...], tag: sealed.tag[...], associatedData: aad)
        #expect(opened == plaintext)
        var badTag = sealed.tag
        badTag[0] ^= 1
        #expect(
            AESGCM.open(key: key, nonce: nonce, ciphertext: sealed.ciphertext[...], tag: badTag[...], associatedData: aad)
                == nil)
    }
}
