import AuthFlow
import Foundation
import Testing

/// The core's sign-in values as the store records they become: a verified identity's profile, key and update,
/// a token response's stored tokens, Apple's first-login name parked as a pending profile.
@Suite struct StoreConversionTests {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    @Test func convertsTheCoreSignInValues() throws {
        let verified = VerifiedIdentity(
            provider: "apple", subject: "000544.x", email: "x@privaterelay.appleid.com", emailVerified: true, name: nil,
            source: .idToken, rawClaims: ["is_private_email": .string("true")], isPrivateRelayEmail: true)
        let profile = IdentityProfile(verified, name: "Ada Lovelace")
        #expect(
            profile
                == IdentityProfile(
                    email: "x@privaterelay.appleid.com", emailVerified: true, isPrivateEmail: true, name: "Ada Lovelace"
                ))
        #expect(IdentityKey(verified) == IdentityKey(provider: "apple", subject: "000544.x"))
        let update = IdentityProfileUpdate(verified)
        #expect(update.name == nil && update.isPrivateEmail == true && update.emailVerified == true)

        let emailless = VerifiedIdentity(
            provider: "x", subject: "42", email: nil, emailVerified: true, name: "Carol", source: .userinfo,
            rawClaims: [:])
        #expect(IdentityProfile(emailless).emailVerified == false)
        #expect(IdentityProfileUpdate(emailless).emailVerified == nil)

        let tokenSet = TokenSet(
            accessToken: "a", tokenType: "Bearer", refreshToken: "r", expiresIn: 3600, idToken: "id", scope: "openid")
        #expect(
            StoredTokens(tokenSet, receivedAt: Self.now)
                == StoredTokens(
                    accessToken: "a", refreshToken: "r", accessTokenExpiresAt: Self.now + 3600, scope: "openid"))

        let unverified = UnverifiedProfile(provider: "apple", firstName: "Ada", lastName: "Lovelace")
        let pending = PendingProfile(key: "state", profile: unverified, expiresAt: Self.now)
        #expect(pending.unverifiedProfile == unverified)
        #expect(pending.displayName == "Ada Lovelace")
    }

    /// The core re-exports the storage contract: code that imports `AuthFlow` names the store types as before,
    /// qualified by the core's name too.
    @Test func theCoreStillNamesTheStoreTypes() {
        let error: AuthFlow.StoreError = AuthFlow.StoreError(.busy, "m", operation: "op")
        #expect(error.description == "busy: m (operation: op)")
        #expect(AuthFlow.UserID(rawValue: "u") == UserID(rawValue: "u"))
        let _: any AuthFlow.AccountStore = AuthFlow.MemoryStores(clock: ManualClock(Self.now)).accounts
    }
}
