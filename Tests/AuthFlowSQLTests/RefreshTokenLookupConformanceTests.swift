import AuthFlowJOSE
import AuthFlowStoreTestSupport
import AuthFlowStores
import Foundation
import Testing

/// Finding whose stored refresh token a revocation notice names (Google RISC `token-revoked`), on the
/// in-memory, SQLite and PostgreSQL account stores.
@Suite struct RefreshTokenLookupConformanceTests {
    static let aliceRefresh = "1//0gAliceRefreshTokenWithEnoughEntropy"
    static let bobRefresh = "1//0gBobsRefreshTokenWithEnoughEntropy"

    static func withTokens(_ backend: StoreBackend) async throws -> StoreHarness {
        let stores = try backend.makeHarness()
        _ = try await stores.accounts.createUser(.alice, identity: .googleAlice, profile: IdentityProfile())
        _ = try await stores.accounts.createUser(.bob, identity: .googleBob, profile: IdentityProfile())
        _ = try await stores.accounts.createUser(.carol, identity: .xCarol, profile: IdentityProfile())
        try await stores.accounts.saveTokens(
            StoredTokens(accessToken: "ya29.alice", refreshToken: aliceRefresh), for: .googleAlice)
        try await stores.accounts.saveTokens(
            StoredTokens(accessToken: "ya29.bob", refreshToken: bobRefresh), for: .googleBob)
        return stores
    }

    static func hash(_ token: String) -> RefreshTokenIdentifier {
        .sha512SHA512(RefreshTokenIdentifier.sha512SHA512Digest(of: token))
    }

    @Test(arguments: StoreBackend.available)
    func findsTheIdentityByTheDoubleSHA512HashOrThePrefixOfItsRefreshToken(_ backend: StoreBackend) async throws {
        let accounts = try await Self.withTokens(backend).accounts
        #expect(
            try await accounts.identity(provider: "google", refreshToken: Self.hash(Self.aliceRefresh)) == .googleAlice)
        #expect(try await accounts.identity(provider: "google", refreshToken: Self.hash(Self.bobRefresh)) == .googleBob)
        let prefix = try #require(
            RefreshTokenIdentifier(algorithm: "prefix", value: String(Self.bobRefresh.prefix(16))))
        #expect(try await accounts.identity(provider: "google", refreshToken: prefix) == .googleBob)
    }

    @Test(arguments: StoreBackend.available)
    func findsNothingForAnotherTokenAnotherProviderOrADeletedToken(_ backend: StoreBackend) async throws {
        let accounts = try await Self.withTokens(backend).accounts
        #expect(try await accounts.identity(provider: "google", refreshToken: Self.hash("1//0gSomeoneElse")) == nil)
        #expect(try await accounts.identity(provider: "google", refreshToken: .prefix("1//0gSomeoneElse")) == nil)
        #expect(try await accounts.identity(provider: "x", refreshToken: Self.hash(Self.aliceRefresh)) == nil)
        _ = try await accounts.deleteTokens(for: .googleAlice)
        #expect(try await accounts.identity(provider: "google", refreshToken: Self.hash(Self.aliceRefresh)) == nil)
    }

    @Test(arguments: StoreBackend.available)
    func followsTheRefreshTokenThroughSavesRotationsAndRefreshes(_ backend: StoreBackend) async throws {
        let accounts = try await Self.withTokens(backend).accounts
        // A save without a refresh token keeps the stored one, and so its index.
        try await accounts.saveTokens(StoredTokens(accessToken: "ya29.alice-2", refreshToken: nil), for: .googleAlice)
        #expect(
            try await accounts.identity(provider: "google", refreshToken: Self.hash(Self.aliceRefresh)) == .googleAlice)

        // A rotated token replaces both digests; a short one has no prefix to be found by.
        try await accounts.saveTokens(StoredTokens(accessToken: nil, refreshToken: "short-rotated"), for: .googleAlice)
        #expect(try await accounts.identity(provider: "google", refreshToken: Self.hash(Self.aliceRefresh)) == nil)
        #expect(
            try await accounts.identity(provider: "google", refreshToken: .prefix(String(Self.aliceRefresh.prefix(16))))
                == nil)
        #expect(
            try await accounts.identity(provider: "google", refreshToken: Self.hash("short-rotated")) == .googleAlice)

        // The refresh-lease completion indexes the refreshed token too.
        let refreshed = "1//0gAliceRefreshedByTheLeaseHolder"
        _ = try await accounts.beginTokenRefresh(for: .googleAlice, holder: "h", leaseDuration: 30)
        try await accounts.completeTokenRefresh(
            StoredTokens(accessToken: "ya29.alice-3", refreshToken: refreshed), for: .googleAlice, holder: "h")
        #expect(try await accounts.identity(provider: "google", refreshToken: Self.hash(refreshed)) == .googleAlice)
        #expect(try await accounts.identity(provider: "google", refreshToken: Self.hash("short-rotated")) == nil)
    }

    @Test(arguments: StoreBackend.available)
    func namesNoIdentityWhenAPrefixIsSharedByTwoTokens(_ backend: StoreBackend) async throws {
        let accounts = try await Self.withTokens(backend).accounts
        try await accounts.saveTokens(
            StoredTokens(accessToken: nil, refreshToken: "1//0gSharedPrefix-bob"), for: .googleBob)
        try await accounts.saveTokens(
            StoredTokens(accessToken: nil, refreshToken: "1//0gSharedPrefix-alice"), for: .googleAlice)
        #expect(try await accounts.identity(provider: "google", refreshToken: .prefix("1//0gSharedPrefi")) == nil)
        #expect(
            try await accounts.identity(provider: "google", refreshToken: Self.hash("1//0gSharedPrefix-bob"))
                == .googleBob)
    }

    @Test(arguments: StoreBackend.available)
    func refusesAnEmptyProvider(_ backend: StoreBackend) async throws {
        let accounts = try await Self.withTokens(backend).accounts
        let error = await storeError { () throws(StoreError) in
            try await accounts.identity(provider: "", refreshToken: Self.hash(Self.aliceRefresh))
        }
        #expect(error?.code == .invalidValue)
    }

    @Test func acceptsOnlyTheTwoGoogleIdentifierForms() {
        #expect(RefreshTokenIdentifier(algorithm: "prefix", value: "1//0gSharedPrefi") == .prefix("1//0gSharedPrefi"))
        #expect(RefreshTokenIdentifier(algorithm: "prefix", value: "1//0g") == nil)
        #expect(RefreshTokenIdentifier(algorithm: "hash_base64_sha512_sha512", value: "") == nil)
        #expect(RefreshTokenIdentifier(algorithm: "hash_base64_sha256", value: "abc") == nil)
        #expect(Self.hash("abc").matches("abc"))
        #expect(!Self.hash("abc").matches("abd"))
        #expect(!RefreshTokenIdentifier.prefix("1//0gSharedPrefi").matches("1//0gSharedPrefX-rest"))
    }
}
