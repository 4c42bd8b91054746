import AuthFlow
import AuthFlowJOSE
import Foundation
import Testing

@testable import AuthFlowServer

/// The ceremony seal: what it carries, secret rotation as for native nonces, and its refusals.
@Suite struct PasskeyCeremonySealTests {
    static let old = "old-secret-0123456789abcdef-0123456789abcdef"
    static let new = "new-secret-0123456789abcdef-0123456789abcdef"
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    static func ceremony() -> PasskeyCeremony {
        PasskeyCeremonySeal.ceremony(
            .registration, provider: "passkey",
            user: .init(handle: [1, 2, 3], name: "alice", displayName: "Alice", userID: UserID(rawValue: "u-1")),
            now: now, lifetime: 300, random: SystemRandom())
    }

    @Test func opensUnderTheRotatedKeyringAndCarriesEverything() throws {
        let issued = Self.ceremony()
        let sealed = try PasskeyCeremonySeal(keyring: SecretKeyring(current: Self.old), random: SystemRandom())
            .seal(issued)
        let rotated = try PasskeyCeremonySeal(
            keyring: SecretKeyring(current: Self.new, previous: [Self.old]), random: SystemRandom())
        let opened = try rotated.open(sealed, kind: .registration, provider: "passkey", now: Self.now)
        #expect(opened == issued)
        #expect(opened.expiresAt == Self.now.addingTimeInterval(300))
        let forgotten = try PasskeyCeremonySeal(keyring: SecretKeyring(current: Self.new), random: SystemRandom())
        #expect(throws: ServerError.self) {
            try forgotten.open(sealed, kind: .registration, provider: "passkey", now: Self.now)
        }
        #expect(!sealed.contains("alice"))
    }

    @Test func refusesAlteredOversizedExpiredAndMismatchedCeremonies() throws {
        let seal = try PasskeyCeremonySeal(keyring: SecretKeyring(current: Self.old), random: SystemRandom())
        let sealed = try seal.seal(Self.ceremony())
        func code(
            _ text: String, kind: PasskeyCeremony.Kind = .registration, provider: String = "passkey",
            at: Date = PasskeyCeremonySealTests.now
        )
            -> String?
        {
            do {
                _ = try seal.open(text, kind: kind, provider: provider, now: at)
                return nil
            } catch {
                return error.code.rawValue
            }
        }
        var altered = Array(sealed)
        altered[10] = altered[10] == "A" ? "B" : "A"
        #expect(code(String(altered)) == "ceremony_invalid")
        #expect(code(String(repeating: "A", count: 4000)) == "ceremony_invalid")
        #expect(code(sealed, kind: .authentication) == "ceremony_kind_mismatch")
        #expect(code(sealed, provider: "other") == "ceremony_provider_mismatch")
        #expect(code(sealed, at: Self.now.addingTimeInterval(300)) == "ceremony_expired")
        #expect(code(sealed) == nil)
    }
}
