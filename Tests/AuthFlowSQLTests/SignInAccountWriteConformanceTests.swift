import AuthFlowJOSE
import AuthFlowStoreTestSupport
import AuthFlowStores
import Foundation
import Testing

/// A sign-in's account write and its provider tokens in one transaction (`createUser`, `linkIdentity` and
/// `updateIdentityProfile` with `tokens:`), against the in-memory, SQLite and PostgreSQL stores alike: both are
/// stored together, and when either is refused neither is.
@Suite struct SignInAccountWriteConformanceTests {
    static let profile = IdentityProfile(
        email: "alice@example.com", emailVerified: true, isPrivateEmail: false, name: "Alice Liddell")
    static let tokens = StoredTokens(accessToken: "ya29.first", refreshToken: "1//first-refresh", scope: "openid")
    /// Tokens every store refuses: an access token over `StoreValidation.maximumTokenBytes`.
    static let oversized = StoredTokens(
        accessToken: String(repeating: "a", count: StoreValidation.maximumTokenBytes + 1), refreshToken: nil)

    @Test(arguments: StoreBackend.available)
    func createsTheUserWithItsTokens(_ backend: StoreBackend) async throws {
        let stores = try backend.makeHarness()
        let created = try await stores.accounts.createUser(
            .alice, identity: .googleAlice, profile: Self.profile, tokens: Self.tokens)
        #expect(created.id == .alice && created.identities.map(\.key) == [.googleAlice])
        #expect(try await stores.accounts.identity(.googleAlice)?.userID == .alice)
        #expect(try await stores.accounts.tokens(for: .googleAlice) == Self.tokens)
    }

    @Test(arguments: StoreBackend.available)
    func storesNeitherUserNorTokensWhenEitherIsRefused(_ backend: StoreBackend) async throws {
        let stores = try backend.makeHarness()
        let refusedTokens = await storeError { () throws(StoreError) in
            try await stores.accounts.createUser(
                .alice, identity: .googleAlice, profile: Self.profile, tokens: Self.oversized)
        }
        #expect(refusedTokens?.code == .invalidValue)
        #expect(refusedTokens?.message.contains("access token") == true)
        #expect(try await stores.accounts.user(.alice) == nil)
        #expect(try await stores.accounts.identity(.googleAlice) == nil)

        _ = try await stores.accounts.createUser(.bob, identity: .googleBob, profile: IdentityProfile())
        let taken = await storeError { () throws(StoreError) in
            try await stores.accounts.createUser(
                .alice, identity: .googleBob, profile: Self.profile, tokens: Self.tokens)
        }
        #expect(taken?.code == .identityAlreadyLinked)
        #expect(try await stores.accounts.user(.alice) == nil)
        #expect(try await stores.accounts.tokens(for: .googleBob) == nil)
    }

    @Test(arguments: StoreBackend.available)
    func linksAnIdentityWithItsTokensOrNeither(_ backend: StoreBackend) async throws {
        let stores = try backend.makeHarness()
        _ = try await stores.accounts.createUser(.alice, identity: .appleAlice, profile: Self.profile)
        let linked = try await stores.accounts.linkIdentity(
            .googleAlice, profile: Self.profile, to: .alice, tokens: Self.tokens)
        #expect(linked.userID == .alice && linked.key == .googleAlice)
        #expect(try await stores.accounts.tokens(for: .googleAlice) == Self.tokens)

        let noUser = await storeError { () throws(StoreError) in
            try await stores.accounts.linkIdentity(
                .googleBob, profile: IdentityProfile(), to: .bob, tokens: Self.tokens)
        }
        #expect(noUser?.code == .userNotFound)
        #expect(try await stores.accounts.identity(.googleBob) == nil)
        #expect(try await stores.accounts.tokens(for: .googleBob) == nil)

        let refused = await storeError { () throws(StoreError) in
            try await stores.accounts.linkIdentity(
                .googleAliceWork, profile: IdentityProfile(), to: .alice, tokens: Self.oversized)
        }
        #expect(refused?.code == .invalidValue)
        #expect(try await stores.accounts.identity(.googleAliceWork) == nil)
    }

    @Test(arguments: StoreBackend.available)
    func updatesTheProfileWithItsTokensKeepingTheStoredRefreshToken(_ backend: StoreBackend) async throws {
        let stores = try backend.makeHarness()
        _ = try await stores.accounts.createUser(
            .alice, identity: .googleAlice, profile: Self.profile, tokens: Self.tokens)
        let later = StoredTokens(accessToken: "ya29.second", refreshToken: nil, scope: "openid email")
        let updated = try await stores.accounts.updateIdentityProfile(
            IdentityProfileUpdate(name: "Alice Pleasance Liddell"), for: .googleAlice, tokens: later)
        #expect(updated.name == "Alice Pleasance Liddell")
        let stored = try await stores.accounts.tokens(for: .googleAlice)
        #expect(stored?.accessToken == "ya29.second" && stored?.scope == "openid email")
        #expect(stored?.refreshToken == "1//first-refresh")

        let refused = await storeError { () throws(StoreError) in
            try await stores.accounts.updateIdentityProfile(
                IdentityProfileUpdate(name: "Mallory"), for: .googleAlice, tokens: Self.oversized)
        }
        #expect(refused?.code == .invalidValue)
        #expect(try await stores.accounts.identity(.googleAlice)?.name == "Alice Pleasance Liddell")
        #expect(try await stores.accounts.tokens(for: .googleAlice)?.accessToken == "ya29.second")

        let unknown = await storeError { () throws(StoreError) in
            try await stores.accounts.updateIdentityProfile(
                IdentityProfileUpdate(name: "Bob"), for: .googleBob, tokens: Self.tokens)
        }
        #expect(unknown?.code == .identityNotFound)
        #expect(try await stores.accounts.tokens(for: .googleBob) == nil)
    }
}
