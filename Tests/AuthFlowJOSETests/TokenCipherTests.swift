import Testing

@testable import AuthFlowJOSE

/// Returns the same preset nonce on every call, for exact known-answer tests.
private struct PresetNonce: SecureRandom {
    let nonce: [UInt8]
    func bytes(_ count: Int) -> [UInt8] { Array(nonce.prefix(count)) }
}

@Suite struct TokenCipherTests {
    static let secret = "0123456789abcdef0123456789abcdef-test-secret"
    static let aad = Array("refresh_token|6:google|subject-1".utf8)
    static let plaintext = Array("1//refresh-token-value".utf8)
    // Computed independently with Python `cryptography`: HKDF(SHA256, length 32, salt None,
    // info "authflow token encryption v1") of the secret, then AESGCM.encrypt(nonce 01..0c, plaintext,
    // 0x01 || aad), prefixed with 0x01 || nonce.
    static let expectedSealed = hex(
        "010102030405060708090a0b0c54e556e4256bca0e3b75ae6602da344d276b3761896ad715045f43d3b254291836c6496a4879")

    static func cipher(secret: String = secret, nonce: [UInt8] = Array(1...12)) throws -> TokenCipher {
        try TokenCipher(secret: secret, random: PresetNonce(nonce: nonce))
    }

    @Test func sealMatchesTheIndependentlyComputedVector() throws {
        let sealed = try Self.cipher().seal(Self.plaintext, associatedData: Self.aad)
        #expect(sealed == Self.expectedSealed)
        #expect(sealed.count == Self.plaintext.count + TokenCipher.overhead)
        #expect(try Self.cipher().open(Self.expectedSealed, associatedData: Self.aad) == Self.plaintext)
    }

    // Seals reuse keyed OpenSSL contexts: a reused one must start each message afresh (no length, partial block
    // or tag of the previous seal carried over), whatever was sealed on it before.
    @Test func reusedContextsSealEveryValueAfresh() throws {
        let cipher = try Self.cipher()
        for round in 0..<4 {
            #expect(try cipher.seal(Self.plaintext, associatedData: Self.aad) == Self.expectedSealed, "round \(round)")
            // Lengths that leave partial blocks in the plaintext and the associated data.
            let other = try cipher.seal(Array(repeating: UInt8(round), count: 17 + round), associatedData: [7, 7, 7])
            #expect(
                try cipher.open(other, associatedData: [7, 7, 7]) == Array(repeating: UInt8(round), count: 17 + round))
        }
        #expect(try cipher.seal([], associatedData: []).count == TokenCipher.overhead)
        #expect(try cipher.seal(Self.plaintext, associatedData: Self.aad) == Self.expectedSealed)
    }

    @Test func sealsAndOpensCollectionsThatAreNotArrays() throws {
        let cipher = try Self.cipher()
        // Not contiguous (no contiguous storage): copied first; slices that do not start at 0: read in place.
        let sealed = try cipher.seal(Self.plaintext.lazy.map { $0 }, associatedData: Self.aad.lazy.map { $0 })
        #expect(sealed == Self.expectedSealed)
        let padded = [0xFF] + Self.expectedSealed + [0xFF]
        let slice = padded[1..<(padded.count - 1)]
        let aadSlice = ([0] + Self.aad)[1...]
        #expect(try cipher.open(slice, associatedData: aadSlice) == Self.plaintext)
        #expect(try cipher.open(Self.expectedSealed.lazy.map { $0 }, associatedData: Self.aad) == Self.plaintext)
    }

    @Test func concurrentSealsEachOpenToTheirOwnValue() async throws {
        let cipher = try TokenCipher(secret: Self.secret, random: SystemRandom())
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for index in 0..<200 {
                        let value = Array("value \(task) \(index)".utf8)
                        let aad = Array("row \(task)".utf8)
                        let sealed = try cipher.seal(value, associatedData: aad)
                        #expect(try cipher.open(sealed, associatedData: aad) == value)
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    @Test func roundTripsEmptyAndLargeValuesWithFreshNonces() throws {
        let cipher = try TokenCipher(secret: Self.secret, random: SystemRandom())
        #expect(try cipher.open(cipher.seal([], associatedData: []), associatedData: []) == [])
        let large = [UInt8](repeating: 0x41, count: 70_000)
        #expect(try cipher.open(cipher.seal(large, associatedData: Self.aad), associatedData: Self.aad) == large)
        let first = try cipher.seal(Self.plaintext, associatedData: Self.aad)
        let second = try cipher.seal(Self.plaintext, associatedData: Self.aad)
        #expect(first != second)
        #expect(first[1..<13] != second[1..<13])
    }

    @Test func refusesEveryAlteredByte() throws {
        let cipher = try Self.cipher()
        for index in Self.expectedSealed.indices {
            var altered = Self.expectedSealed
            altered[index] ^= 0x01
            let expected: JOSEError.Code = index == 0 ? .invalidCiphertext : .decryptionFailed
            do {
                _ = try cipher.open(altered, associatedData: Self.aad)
                Issue.record("opened data altered at byte \(index)")
            } catch {
                #expect(error.code == expected, "byte \(index)")
            }
        }
    }

    @Test func refusesOtherAssociatedData() throws {
        let cipher = try Self.cipher()
        for aad in ["access_token|6:google|subject-1", "refresh_token|6:google|subject-2", ""] {
            do {
                _ = try cipher.open(Self.expectedSealed, associatedData: Array(aad.utf8))
                Issue.record("opened with associated data \(aad)")
            } catch {
                #expect(error.code == .decryptionFailed)
            }
        }
    }

    @Test func refusesAnotherSecret() throws {
        let other = try Self.cipher(secret: "another-secret-another-secret-another-secret")
        do {
            _ = try other.open(Self.expectedSealed, associatedData: Self.aad)
            Issue.record("opened under another secret")
        } catch {
            #expect(error.code == .decryptionFailed)
            #expect(!error.message.contains(Self.secret))
        }
    }

    @Test func refusesTruncatedAndUnknownVersionData() throws {
        let cipher = try Self.cipher()
        for sealed in [[], [1], Array(Self.expectedSealed.prefix(TokenCipher.overhead - 1))] {
            do {
                _ = try cipher.open(sealed, associatedData: Self.aad)
                Issue.record("opened \(sealed.count) bytes")
            } catch {
                #expect(error.code == .invalidCiphertext)
            }
        }
        var future = Self.expectedSealed
        future[0] = 2
        #expect(throws: JOSEError(.invalidCiphertext, "expected sealed data of format version 1, found version 2")) {
            try cipher.open(future, associatedData: Self.aad)
        }
        // The minimum length is a valid empty ciphertext only when its tag verifies.
        let empty = try cipher.seal([], associatedData: Self.aad)
        #expect(empty.count == TokenCipher.overhead)
        #expect(try cipher.open(empty, associatedData: Self.aad) == [])
    }

    @Test func refusesShortSecretsAndShortRandomness() throws {
        #expect(throws: JOSEError.self) {
            try TokenCipher(secret: String(repeating: "x", count: 31), random: SystemRandom())
        }
        do {
            _ = try TokenCipher(secret: "short", random: SystemRandom())
            Issue.record("accepted a 5-byte secret")
        } catch {
            #expect(error.code == .weakKey)
        }
        let starved = try Self.cipher(nonce: [1, 2, 3])
        do {
            _ = try starved.seal(Self.plaintext, associatedData: Self.aad)
            Issue.record("sealed with a 3-byte nonce")
        } catch {
            #expect(error.code == .cryptoFailure)
        }
    }

    @Test func neverShowsTheKey() throws {
        let cipher = try Self.cipher()
        #expect(cipher.description == "TokenCipher(AES-256-GCM, v1)")
        var dumped = ""
        dump(cipher, to: &dumped)
        #expect(!dumped.contains("key"))
        #expect(Mirror(reflecting: cipher).children.isEmpty)
    }

    static func hex(_ text: String) -> [UInt8] { Hex.decode(text) ?? [] }

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
            AESGCM.open(
                key: key, nonce: nonce, ciphertext: sealed.ciphertext[...], tag: badTag[...], associatedData: aad)
                == nil)
    }
}
