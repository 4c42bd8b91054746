import AuthFlowJOSE
import Testing

/// `server.secret` rotation: a keyring seals under its current secret and opens under any it holds.
@Suite struct SecretKeyringTests {
    static let old = Array("the-old-server-secret-0123456789abcdef".utf8)
    static let new = Array("the-new-server-secret-fedcba9876543210".utf8)

    func cipher(_ current: [UInt8], _ previous: [[UInt8]] = [], label: String = "test label") throws -> TokenCipher {
        try SecretKeyring(current: current, previous: previous).cipher(label: label, random: SystemRandom())
    }

    func opens(_ cipher: TokenCipher, _ sealed: [UInt8]) -> Bool {
        (try? cipher.open(sealed, associatedData: Array("row".utf8))) == Array("token".utf8)
    }

    @Test func opensWhatAPreviousSecretSealedAndSealsUnderTheCurrentOne() throws {
        let sealedOld = try cipher(Self.old).seal(Array("token".utf8), associatedData: Array("row".utf8))
        let rotated = try cipher(Self.new, [Self.old])
        #expect(opens(rotated, sealedOld))
        let sealedNew = try rotated.seal(Array("token".utf8), associatedData: Array("row".utf8))
        // Sealed under the new secret only: the new secret alone opens it, the old one does not.
        #expect(opens(try cipher(Self.new), sealedNew))
        #expect(!opens(try cipher(Self.old), sealedNew))
        // The same as a plain TokenCipher of the current secret, with the same label.
        let plain = try TokenCipher(secret: Self.new, random: SystemRandom(), label: "test label")
        #expect(opens(plain, sealedNew))
    }

    @Test func refusesWhatADroppedSecretSealed() throws {
        let sealedOld = try cipher(Self.old).seal(Array("token".utf8), associatedData: Array("row".utf8))
        let dropped = try cipher(Self.new)
        let error = try #require(throws: JOSEError.self) {
            try dropped.open(sealedOld, associatedData: Array("row".utf8))
        }
        #expect(error.code == .decryptionFailed)
        // A previous secret still binds the associated data and the label.
        let rotated = try cipher(Self.new, [Self.old])
        #expect(throws: JOSEError.self) { try rotated.open(sealedOld, associatedData: Array("other".utf8)) }
        #expect(!opens(try cipher(Self.new, [Self.old], label: "another label"), sealedOld))
    }

    @Test func keyedDigestsListEverySecretCurrentFirst() throws {
        let rotated = try cipher(Self.new, [Self.old])
        let digests = rotated.keyedDigests(Array("prefix".utf8), purpose: "index")
        #expect(digests.count == 2)
        #expect(digests[0] == rotated.keyedDigest(Array("prefix".utf8), purpose: "index"))
        #expect(digests[1] == (try cipher(Self.old)).keyedDigest(Array("prefix".utf8), purpose: "index"))
    }

    @Test func refusesAShortSecretNamingWhichOne() throws {
        let short = Array("only-thirty-one-bytes-long-here".utf8)
        #expect(short.count == 31)
        let previous = try #require(throws: JOSEError.self) {
            try SecretKeyring(current: Self.new, previous: [Self.old, short])
        }
        #expect(previous.code == .weakKey)
        #expect(previous.message.contains("previous secret 1"))
        #expect(previous.message.contains("found 31 bytes"))
        let current = try #require(throws: JOSEError.self) { try SecretKeyring(current: short) }
        #expect(current.message.contains("the current secret"))
    }

    @Test func neverShowsASecret() throws {
        let keyring = try SecretKeyring(
            current: "the-new-server-secret-fedcba9876543210",
            previous: [
                "the-old-server-secret-0123456789abcdef"
            ])
        #expect(keyring.count == 2)
        var dumped = ""
        dump(keyring, to: &dumped)
        for text in [String(describing: keyring), String(reflecting: keyring), dumped] {
            #expect(!text.contains("server-secret"))
        }
    }
}
