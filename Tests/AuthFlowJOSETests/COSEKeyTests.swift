import Testing

@testable import AuthFlowJOSE

/// COSE keys to JWKs: the three WebAuthn profiles load and verify their own signatures; every other key
/// or inconsistency is refused.
@Suite("COSE keys")
struct COSEKeyTests {
    static func key(_ entries: [(Int, CBORValue)]) -> CBORValue {
        .map(entries.map { CBORMapEntry(CBORValue($0.0), $0.1) })
    }

    static let x = CBORValue.bytes(Array(repeating: 1, count: 32))

    @Test(arguments: [COSEAlgorithm.es256, .edDSA, .rs256])
    func roundTripsAndVerifies(_ algorithm: COSEAlgorithm) throws {
        let privateKey: JWK =
            switch algorithm {
            case .es256: try JWK.generateP256()
            case .edDSA: try JWK.generateEd25519()
            case .rs256: try JWK.generateRSA()
            }
        let bytes = try COSEKey.cbor(for: privateKey.publicKey, algorithm: algorithm).encoded()
        let key = try COSEKey(bytes: bytes)
        #expect(key.algorithm == algorithm)
        #expect(try key.jwk == privateKey.publicKey.with(keyID: nil, algorithm: algorithm.jwsAlgorithm))
        let message = Array("authenticator data and client data hash".utf8)
        var signature = try privateKey.webAuthnSignature(over: message, algorithm: algorithm)
        #expect(key.verify(signature: signature, over: message))
        #expect(!key.verify(signature: signature, over: message + [0]))
        signature[signature.count - 1] ^= 1
        #expect(!key.verify(signature: signature, over: message))
    }

    @Test func refusesOtherKeysAndInconsistencies() throws {
        let p256 = try JWK.generateP256()
        let good = try COSEKey.cbor(for: p256.publicKey, algorithm: .es256)
        func with(_ label: Int, _ value: CBORValue?) -> CBORValue {
            var entries = (good.mapValue ?? []).filter { $0.key != CBORValue(label) }
            if let value { entries.append(CBORMapEntry(CBORValue(label), value)) }
            return .map(entries)
        }
        let cases: [(CBORValue, JOSEError.Code)] = [
            (.array([]), .invalidKey),
            (with(3, nil), .invalidKey),
            (with(3, .text("ES256")), .invalidKey),
            (with(3, CBORValue(-35)), .unsupportedAlgorithm),
            (with(3, CBORValue(-37)), .unsupportedAlgorithm),
            (with(1, CBORValue(1)), .keyMismatch),
            (with(1, nil), .invalidKey),
            (with(-1, CBORValue(2)), .keyMismatch),
            (with(-2, .bytes(Array(repeating: 1, count: 31))), .invalidKey),
            (with(-3, .bool(true)), .invalidKey),
            (with(-3, .bytes(Array(repeating: 2, count: 32))), .invalidKey),
            (with(-4, .bytes(Array(repeating: 3, count: 32))), .invalidKey),
            (with(-5, CBORValue(0)), .invalidKey),
            (with(7, CBORValue(0)), .invalidKey),
            (Self.key([(1, CBORValue(1)), (3, CBORValue(-8)), (-1, CBORValue(7)), (-2, Self.x)]), .keyMismatch),
            (Self.key([(1, CBORValue(1)), (3, CBORValue(-8)), (-1, CBORValue(6)), (-2, .bytes([1]))]), .invalidKey),
            (
                Self.key([(1, CBORValue(1)), (3, CBORValue(-8)), (-1, CBORValue(6)), (-2, Self.x), (-4, Self.x)]),
                .invalidKey
            ),
            (
                Self.key([
                    (1, CBORValue(3)), (3, CBORValue(-257)), (-1, .bytes(Array(repeating: 0xC5, count: 128))),
                    (-2, .bytes([1, 0, 1])),
                ]), .weakKey
            ),
            (
                Self.key([
                    (1, CBORValue(3)), (3, CBORValue(-257)), (-1, .bytes(Array(repeating: 0xC5, count: 256))),
                    (-2, .bytes([2])),
                ]), .weakKey
            ),
        ]
        for (cbor, code) in cases {
            #expect(throws: JOSEError.self) { _ = try COSEKey(cbor: cbor) }
            do {
                _ = try COSEKey(cbor: cbor)
            } catch {
                #expect(error.code == code, "\(error)")
            }
        }
        // Bytes that are not one strict CBOR item.
        for bytes in [[], [0xA0, 0x00], [0xBF, 0xFF]] as [[UInt8]] {
            #expect(throws: JOSEError.self) { _ = try COSEKey(bytes: bytes) }
        }
    }

    @Test func readsOnlyStrictDERSignatures() {
        func raw(_ hex: String) -> [UInt8]? {
            CBORTests.hex(hex).withUnsafeBufferPointer { ECDSASignatureEncoding.raw(fromDER: $0, half: 32) }
        }
        let r = String(repeating: "11", count: 32)
        let s = String(repeating: "22", count: 32)
        #expect(raw("3044" + "0220" + r + "0220" + s) == CBORTests.hex(r + s))
        let highR = "80" + String(repeating: "11", count: 31)
        #expect(raw("3045" + "022100" + highR + "0220" + s) == CBORTests.hex(highR + s))
        #expect(
            raw("3006020101020102")
                == CBORTests.hex(String(repeating: "00", count: 31) + "01" + String(repeating: "00", count: 31) + "02"))
        for bad in [
            "308144" + "0220" + r + "0220" + s,  // long-form length under 128
            "3045" + "022100" + r + "0220" + s,  // a leading zero before a byte below 0x80
            "3044" + "0220" + highR + "0220" + s,  // a negative integer
            "3044" + "0220" + r + "0220" + s + "00",  // a trailing byte
            "3045" + "0220" + r + "0220" + s,  // a sequence length that overshoots
            "3046" + "0222" + "0000" + r + "0220" + s,  // two leading zeros
            "3044" + "0420" + r + "0220" + s,  // not an INTEGER
            "3145" + "0221" + "01" + r + "0220" + s,  // not a SEQUENCE; r of 33 bytes
            "3046" + "022201" + r + "00" + "0220" + s,  // r longer than 32 bytes
            "3006020001020102",  // an empty integer
        ] {
            #expect(raw(bad) == nil, "\(bad.prefix(12))")
        }
    }
}
