import AuthFlowJOSE
import AuthFlowStores
import Foundation
import Testing

/// The store value types: redaction, the shared profile-update rules, validation, user ids. (The conversions
/// from the core's sign-in values are the core's: StoreConversionTests.)
@Suite struct StoreValueTests {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    static func identity(email: String? = "alice@example.com", verified: Bool = true, name: String? = "Alice")
        -> LinkedIdentity
    {
        LinkedIdentity(
            user: UserID(rawValue: "u1"), key: IdentityKey(provider: "apple", subject: "s1"),
            profile: IdentityProfile(email: email, emailVerified: verified, name: name), at: now)
    }

    @Test func redactsTokensWhenPrinted() {
        let tokens = StoredTokens(
            accessToken: "ya29.SECRET-ACCESS", refreshToken: "1//SECRET-REFRESH",
            accessTokenExpiresAt: Date(timeIntervalSince1970: 1_700_003_600), scope: "openid email")
        #expect(
            tokens.description
                == "StoredTokens(access_token: <redacted>, refresh_token: <redacted>, expires_at: 1700003600, scope: openid email)"
        )
        #expect(tokens.debugDescription == tokens.description)
        var dumped = ""
        dump(tokens, to: &dumped)
        #expect(!dumped.contains("SECRET"))
        #expect("\(tokens)".contains("SECRET") == false)
        #expect(StoredTokens(accessToken: nil, refreshToken: nil).description.contains("access_token: none"))
    }

    @Test func keepsAKnownNameAndOtherFieldsWhenAnUpdateOmitsThem() {
        let stored = Self.identity()
        let later = Self.now.addingTimeInterval(60)
        #expect(stored.applying(IdentityProfileUpdate(), at: later) == stored)
        #expect(stored.applying(IdentityProfileUpdate(email: "alice@example.com"), at: later) == stored)
        let renamed = stored.applying(IdentityProfileUpdate(name: "Alice L."), at: later)
        #expect(renamed.name == "Alice L." && renamed.updatedAt == later && renamed.createdAt == Self.now)
        #expect(renamed.applying(IdentityProfileUpdate(name: nil), at: later + 60).name == "Alice L.")
    }

    @Test func neverCarriesVerificationOverToANewAddress() {
        let stored = Self.identity()
        let moved = stored.applying(IdentityProfileUpdate(email: "other@example.com"), at: Self.now + 1)
        #expect(moved.email == "other@example.com" && !moved.emailVerified)
        let recased = stored.applying(IdentityProfileUpdate(email: "ALICE@example.com"), at: Self.now + 1)
        #expect(recased.email == "ALICE@example.com" && recased.emailVerified)
        let verifiedMove = stored.applying(
            IdentityProfileUpdate(email: "new@example.com", emailVerified: true), at: Self.now)
        #expect(verifiedMove.emailVerified)
        let unverify = stored.applying(IdentityProfileUpdate(emailVerified: false), at: Self.now)
        #expect(!unverify.emailVerified && unverify.email == "alice@example.com")
    }

    @Test func togglesDisabledOnlyWhenItChanges() {
        let stored = Self.identity()
        #expect(stored.settingDisabled(false, at: Self.now + 5) == stored)
        let disabled = stored.settingDisabled(true, at: Self.now + 5)
        #expect(disabled.isDisabled && disabled.updatedAt == Self.now + 5)
    }

    @Test func mergesSavedTokensKeepingTheRefreshToken() {
        let stored = StoredTokens(accessToken: "a1", refreshToken: "r1", accessTokenExpiresAt: Self.now, scope: "s")
        let merged = StoredTokens(accessToken: "a2", refreshToken: nil).replacing(stored)
        #expect(merged == StoredTokens(accessToken: "a2", refreshToken: "r1"))
        #expect(StoredTokens(accessToken: nil, refreshToken: "r2").replacing(stored).refreshToken == "r2")
        #expect(StoredTokens(accessToken: "a", refreshToken: nil).replacing(nil).refreshToken == nil)
    }

    @Test func validatesArgumentsWithoutEchoingThem() {
        #expect(throws: StoreError(.invalidValue, "expected a non-empty subject, found an empty one", operation: "op"))
        {
            try StoreValidation.checkIdentity(IdentityKey(provider: "apple", subject: ""), operation: "op")
        }
        let long = String(repeating: "k", count: StoreValidation.maximumKeyBytes + 1)
        do {
            try StoreValidation.checkKey(long, "session id", operation: "createSession")
            Issue.record("accepted an oversized key")
        } catch {
            #expect(error.code == .invalidValue)
            #expect(
                error.description
                    == "invalid_value: expected a session id of at most 1024 bytes, found 1025 bytes (operation: createSession)"
            )
        }
        #expect(throws: StoreError.self) {
            try StoreValidation.checkDate(Date(timeIntervalSince1970: .infinity), "expiry", operation: "op")
        }
        let session = SessionRecord(
            userID: UserID(rawValue: "u"), provider: "p", subject: "s", createdAt: Self.now, expiresAt: Self.now)
        #expect(throws: StoreError.self) { try StoreValidation.checkSession(id: "id", session, operation: "op") }
        #expect(StoreValidation.normalizedEmail("Alice@Example.COM") == "alice@example.com")
    }

    @Test func generatesRandomURLSafeUserIDs() {
        let first = UserID.generate(using: SystemRandom())
        let second = UserID.generate(using: SystemRandom())
        #expect(first != second)
        #expect(first.rawValue.count == 22)
        #expect(
            first.rawValue.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a)
                    || byte == 0x2d || byte == 0x5f
            })
        #expect(first.description == first.rawValue)
    }

    @Test func userIDsSortByTheirText() {
        let ids = ["u-b", "u-a", "u-c"].map { UserID(rawValue: $0) }
        #expect(ids.sorted().map(\.rawValue) == ["u-a", "u-b", "u-c"])
    }

    @Test func describesErrorsWithCodeAndOperation() {
        let error = StoreError(.lastIdentity, "expected one left, found none", operation: "unlinkProvider")
        #expect(error.description == "last_identity: expected one left, found none (operation: unlinkProvider)")
        #expect(StoreError(.busy, "m").description == "busy: m")
        #expect(AccountChange.removeIdentity(IdentityKey(provider: "a", subject: "b")).identity.description == "a:b")
    }
}
