import AuthFlow
import AuthFlowJOSE
import Foundation
import Testing

@Suite struct FlowRecordSealTests {
    static let secret = Array("0123456789abcdef0123456789abcdef-flow".utf8)
    static let record = FlowRecord(
        provider: "google", state: "state-value-0123456789", nonce: "nonce-value-0123456789",
        pkceVerifier: "verifier-value-0123456789", returnTo: "/after", browserBindingDigest: "digest",
        intent: .login, createdAt: Date(timeIntervalSince1970: 1_750_000_000))

    func seal(_ secret: [UInt8] = Self.secret) throws -> FlowRecordSeal {
        try FlowRecordSeal(secret: secret, random: SystemRandom())
    }

    @Test func opensWhatItSealedUnderTheSameNameAndProvider() throws {
        let seal = try seal()
        let value = try seal.seal(Self.record, cookieName: "authflow_flow_abc")
        #expect(value.hasPrefix("v1."))
        #expect(seal.open(value, cookieName: "authflow_flow_abc", provider: "google") == Self.record)
        // The value hides every secret of the flow.
        for secret in ["state-value", "nonce-value", "verifier-value", "/after"] { #expect(!value.contains(secret)) }
    }

    @Test func refusesAnotherCookieNameProviderOrSecret() throws {
        let seal = try seal()
        let value = try seal.seal(Self.record, cookieName: "authflow_flow_abc")
        #expect(seal.open(value, cookieName: "authflow_flow_xyz", provider: "google") == nil)
        #expect(seal.open(value, cookieName: "authflow_flow_abc", provider: "apple") == nil)
        let other = try self.seal(Array("another-secret-another-secret-another".utf8))
        #expect(other.open(value, cookieName: "authflow_flow_abc", provider: "google") == nil)
    }

    @Test func opensACookieSealedUnderAPreviousSecretUntilThatSecretIsDropped() throws {
        let old = try seal()
        let value = try old.seal(Self.record, cookieName: "authflow_flow_abc")
        let new = Array("the-new-server-secret-fedcba9876543210".utf8)
        let rotated = try FlowRecordSeal(
            keyring: try SecretKeyring(current: new, previous: [Self.secret]), random: SystemRandom())
        #expect(rotated.open(value, cookieName: "authflow_flow_abc", provider: "google") == Self.record)
        // What the rotated seal writes opens under the new secret alone.
        let fresh = try rotated.seal(Self.record, cookieName: "authflow_flow_abc")
        let dropped = try FlowRecordSeal(keyring: try SecretKeyring(current: new), random: SystemRandom())
        #expect(dropped.open(fresh, cookieName: "authflow_flow_abc", provider: "google") == Self.record)
        #expect(dropped.open(value, cookieName: "authflow_flow_abc", provider: "google") == nil)
    }

    @Test func refusesAlteredMalformedAndOversizedValues() throws {
        let seal = try seal()
        let value = try seal.seal(Self.record, cookieName: "n")
        var bytes = Array(value.utf8)
        bytes[bytes.count / 2] = bytes[bytes.count / 2] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        for bad in [
            String(decoding: bytes, as: UTF8.self), "v2." + value.dropFirst(3), String(value.dropFirst(3)), "v1.",
            "v1.!!!", "", "v1." + String(repeating: "A", count: FlowRecordSeal.maximumValueLength),
        ] {
            #expect(seal.open(bad, cookieName: "n", provider: "google") == nil)
        }
        #expect(seal.open(nil, cookieName: "n", provider: "google") == nil)
    }

    @Test func usesAKeyOfItsOwnNotTheTokenKey() throws {
        // A token ciphertext under the same secret never opens as a flow cookie.
        let tokens = try TokenCipher(secret: Self.secret, random: SystemRandom())
        let sealed = try tokens.seal(
            Self.record.serialized(), associatedData: Array("n\ngoogle".utf8))
        let seal = try seal()
        #expect(seal.open("v1." + Base64URL.encode(sealed), cookieName: "n", provider: "google") == nil)
    }

    @Test func refusesAShortSecret() {
        #expect(throws: JOSEError.self) { try FlowRecordSeal(secret: Array("short".utf8), random: SystemRandom()) }
    }
}

@Suite struct InMemoryRateLimitStoreTests {
    static let start = Date(timeIntervalSince1970: 1_000)

    @Test func allowsABurstThenRefusesWithRetryAfter() throws {
        let store = InMemoryRateLimitStore(clock: ManualClock(Self.start))
        for _ in 0..<10 {
            #expect(try store.consume(key: "k", capacity: 10, refillPerSecond: 1).allowed)
        }
        let refused = try store.consume(key: "k", capacity: 10, refillPerSecond: 1)
        #expect(!refused.allowed)
        #expect(refused.retryAfter > 0 && refused.retryAfter <= 1)
    }

    @Test func refillsByTheInjectedClock() throws {
        let clock = ManualClock(Self.start)
        let store = InMemoryRateLimitStore(clock: clock)
        for _ in 0..<5 { _ = try store.consume(key: "k", capacity: 5, refillPerSecond: 2) }
        #expect(try store.consume(key: "k", capacity: 5, refillPerSecond: 2).allowed == false)
        clock.advance(by: 1)
        #expect(try store.consume(key: "k", capacity: 5, refillPerSecond: 2).allowed)
        #expect(try store.consume(key: "k", capacity: 5, refillPerSecond: 2).allowed)
        #expect(try store.consume(key: "k", capacity: 5, refillPerSecond: 2).allowed == false)
    }

    @Test func keepsKeysApart() throws {
        let store = InMemoryRateLimitStore(clock: ManualClock(Self.start))
        _ = try store.consume(key: "start:127.0.0.2", capacity: 1, refillPerSecond: 0.1)
        #expect(try store.consume(key: "start:127.0.0.2", capacity: 1, refillPerSecond: 0.1).allowed == false)
        #expect(try store.consume(key: "start:127.0.0.3", capacity: 1, refillPerSecond: 0.1).allowed)
    }

    @Test func holdsABoundedNumberOfKeys() throws {
        let store = InMemoryRateLimitStore(clock: ManualClock(Self.start), maximumKeys: 100)
        for index in 0..<10_000 { _ = try store.consume(key: "k\(index)", capacity: 10, refillPerSecond: 1) }
        #expect(store.count <= 100)
    }

    @Test func refusesNonsenseRules() {
        let store = InMemoryRateLimitStore(clock: ManualClock(Self.start))
        for (capacity, rate) in [(0.0, 1.0), (1.0, 0.0), (Double.nan, 1.0), (1.0, -1.0), (1.0, .infinity)] {
            #expect(throws: StoreError.self) { try store.consume(key: "k", capacity: capacity, refillPerSecond: rate) }
        }
    }
}
