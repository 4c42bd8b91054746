import AuthFlow
import AuthFlowJOSE
import Foundation
import Testing

@Suite("Native nonces: sealed, per provider, ten minutes")
struct NativeNonceSealTests {
    static let secret = Array("0123456789abcdef0123456789abcdef".utf8)
    static let start = Date(timeIntervalSince1970: 1_750_000_000)

    /// The code `seal` refuses `nonce` with for `provider` at `now`, or `nil` when it opens.
    func refusal(_ seal: NativeNonceSeal, _ nonce: String, provider: String = "apple", now: Date = Self.start)
        -> SignInError.Code?
    {
        do throws(SignInError) {
            _ = try seal.open(nonce, provider: provider, now: now)
            return nil
        } catch {
            return error.code
        }
    }

    @Test func opensWhatItIssuedForTheSameProviderUntilItExpires() throws {
        let seal = try NativeNonceSeal(secret: Self.secret, random: SystemRandom())
        let issued = try seal.issue(provider: "apple", now: Self.start)
        #expect(issued.expiresAt == Self.start + 600)
        #expect(try seal.issue(provider: "apple", now: Self.start).nonce != issued.nonce)
        let opened = try seal.open(issued.nonce, provider: "apple", now: Self.start + 599)
        #expect(opened.provider == "apple")
        #expect(opened.issuedAt == Self.start)
        #expect(refusal(seal, issued.nonce, now: Self.start + 600) == .nonceExpired)
        #expect(refusal(seal, issued.nonce, provider: "google") == .nonceProviderMismatch)
    }

    @Test func opensANonceIssuedUnderAPreviousSecretUntilThatSecretIsDropped() throws {
        let issued = try NativeNonceSeal(secret: Self.secret, random: SystemRandom()).issue(
            provider: "apple", now: Self.start)
        let new = Array("the-new-server-secret-fedcba9876543210".utf8)
        let rotated = try NativeNonceSeal(
            keyring: try SecretKeyring(current: new, previous: [Self.secret]), random: SystemRandom())
        #expect(refusal(rotated, issued.nonce) == nil)
        // Issued by the rotated seal: the new secret alone opens it.
        let fresh = try rotated.issue(provider: "apple", now: Self.start)
        let dropped = try NativeNonceSeal(keyring: try SecretKeyring(current: new), random: SystemRandom())
        #expect(refusal(dropped, fresh.nonce) == nil)
        #expect(refusal(dropped, issued.nonce) == .invalidNonce)
        // The expiry still holds under a previous secret.
        #expect(refusal(rotated, issued.nonce, now: Self.start + 600) == .nonceExpired)
    }

    @Test func refusesNoncesOfAnotherSecretAndAlteredOnes() throws {
        let seal = try NativeNonceSeal(secret: Self.secret, random: SystemRandom())
        let issued = try seal.issue(provider: "apple", now: Self.start)
        let stranger = try NativeNonceSeal(
            secret: Array("another-secret-0123456789abcdef-xyz".utf8), random: SystemRandom())
        #expect(refusal(stranger, issued.nonce) == .invalidNonce)
        var bytes = try Base64URL.decode(issued.nonce)
        bytes[bytes.count / 2] ^= 0x01
        #expect(refusal(seal, Base64URL.encode(bytes)) == .invalidNonce)
        for garbage in ["", "not base64!", String(repeating: "A", count: 600)] {
            #expect(refusal(seal, garbage) == .invalidNonce)
        }
        // Sealed with the same secret for another purpose (the token cipher's key label): no nonce.
        let cipher = try TokenCipher(secret: Self.secret, random: SystemRandom())
        let other = try cipher.seal(Array("1750000000 1750000600 apple".utf8), associatedData: [])
        #expect(refusal(seal, Base64URL.encode(other)) == .invalidNonce)
    }
}
