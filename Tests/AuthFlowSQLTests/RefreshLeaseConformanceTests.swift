import AuthFlowJOSE
import AuthFlowStoreTestSupport
import AuthFlowStores
import Foundation
import Testing

/// The single-flight refresh lease on stored tokens, on the in-memory, SQLite and PostgreSQL account stores.
@Suite struct RefreshLeaseConformanceTests {
    static let signedIn = StoredTokens(
        accessToken: "x-access-1", refreshToken: "x-refresh-1",
        accessTokenExpiresAt: StoreHarness.start.addingTimeInterval(7200), scope: "users.read offline.access")
    static let refreshed = StoredTokens(
        accessToken: "x-access-2", refreshToken: "x-refresh-2",
        accessTokenExpiresAt: StoreHarness.start.addingTimeInterval(9000), scope: "users.read offline.access")

    static func withTokens(_ backend: StoreBackend) async throws -> StoreHarness {
        let stores = try backend.makeHarness()
        _ = try await stores.accounts.createUser(.carol, identity: .xCarol, profile: IdentityProfile())
        try await stores.accounts.saveTokens(signedIn, for: .xCarol)
        return stores
    }

    @Test(arguments: StoreBackend.available)
    func grantsTheLeaseToOneHolderUntilItCompletesWithTheNewTokens(_ backend: StoreBackend) async throws {
        let stores = try await Self.withTokens(backend)
        let accounts = stores.accounts
        #expect(
            try await accounts.beginTokenRefresh(for: .xCarol, holder: "a", leaseDuration: 30)
                == .acquired(Self.signedIn))
        #expect(
            try await accounts.beginTokenRefresh(for: .xCarol, holder: "b", leaseDuration: 30) == .held(Self.signedIn))
        // Taking it again is refused to the holder too: a lease is one refresh.
        #expect(
            try await accounts.beginTokenRefresh(for: .xCarol, holder: "a", leaseDuration: 30) == .held(Self.signedIn))

        try await accounts.completeTokenRefresh(Self.refreshed, for: .xCarol, holder: "a")
        #expect(try await accounts.tokens(for: .xCarol) == Self.refreshed)
        #expect(
            try await accounts.beginTokenRefresh(for: .xCarol, holder: "b", leaseDuration: 30)
                == .acquired(Self.refreshed))
    }

    @Test(arguments: StoreBackend.available)
    func releasesOnlyTheHoldersLeaseAndKeepsTheTokens(_ backend: StoreBackend) async throws {
        let stores = try await Self.withTokens(backend)
        let accounts = stores.accounts
        _ = try await accounts.beginTokenRefresh(for: .xCarol, holder: "a", leaseDuration: 30)
        try await accounts.releaseTokenRefresh(for: .xCarol, holder: "intruder")
        #expect(
            try await accounts.beginTokenRefresh(for: .xCarol, holder: "b", leaseDuration: 30) == .held(Self.signedIn))
        try await accounts.releaseTokenRefresh(for: .xCarol, holder: "a")
        #expect(try await accounts.tokens(for: .xCarol) == Self.signedIn)
        #expect(
            try await accounts.beginTokenRefresh(for: .xCarol, holder: "b", leaseDuration: 30)
                == .acquired(Self.signedIn))
    }

    @Test(arguments: StoreBackend.available)
    func anExpiredLeaseIsTakenOverAndTheLateHolderCannotEndTheNewOne(_ backend: StoreBackend) async throws {
        let stores = try await Self.withTokens(backend)
        let accounts = stores.accounts
        _ = try await accounts.beginTokenRefresh(for: .xCarol, holder: "crashed", leaseDuration: 30)
        stores.clock.advance(by: 29)
        #expect(
            try await accounts.beginTokenRefresh(for: .xCarol, holder: "b", leaseDuration: 30) == .held(Self.signedIn))
        stores.clock.advance(by: 1)
        #expect(
            try await accounts.beginTokenRefresh(for: .xCarol, holder: "b", leaseDuration: 30)
                == .acquired(Self.signedIn))
        // The late holder lost the lease: its write is refused (typed) and changes nothing; b's lease stays.
        var late = Self.refreshed
        late.accessToken = "x-access-late"
        let lost = await storeError { () throws(StoreError) in
            try await accounts.completeTokenRefresh(late, for: .xCarol, holder: "crashed")
        }
        #expect(lost?.code == .leaseLost)
        #expect(try await accounts.tokens(for: .xCarol) == Self.signedIn)
        #expect(
            try await accounts.beginTokenRefresh(for: .xCarol, holder: "c", leaseDuration: 30) == .held(Self.signedIn))
        try await accounts.completeTokenRefresh(Self.refreshed, for: .xCarol, holder: "b")
        #expect(try await accounts.tokens(for: .xCarol) == Self.refreshed)
    }

    @Test(arguments: StoreBackend.available)
    func completingWithoutTheLeaseWritesNothing(_ backend: StoreBackend) async throws {
        let stores = try await Self.withTokens(backend)
        let accounts = stores.accounts
        for holder in ["never-held", "a"] {
            let lost = await storeError { () throws(StoreError) in
                try await accounts.completeTokenRefresh(Self.refreshed, for: .xCarol, holder: holder)
            }
            #expect(lost?.code == .leaseLost)
        }
        _ = try await accounts.beginTokenRefresh(for: .xCarol, holder: "a", leaseDuration: 30)
        try await accounts.releaseTokenRefresh(for: .xCarol, holder: "a")
        let released = await storeError { () throws(StoreError) in
            try await accounts.completeTokenRefresh(Self.refreshed, for: .xCarol, holder: "a")
        }
        #expect(released?.code == .leaseLost)
        #expect(try await accounts.tokens(for: .xCarol) == Self.signedIn)
        // An expired lease no one took since is still the holder's.
        _ = try await accounts.beginTokenRefresh(for: .xCarol, holder: "slow", leaseDuration: 30)
        stores.clock.advance(by: 60)
        try await accounts.completeTokenRefresh(Self.refreshed, for: .xCarol, holder: "slow")
        #expect(try await accounts.tokens(for: .xCarol) == Self.refreshed)
    }

    @Test(arguments: StoreBackend.available)
    func completingWithoutARefreshTokenKeepsTheStoredOne(_ backend: StoreBackend) async throws {
        let stores = try await Self.withTokens(backend)
        _ = try await stores.accounts.beginTokenRefresh(for: .xCarol, holder: "a", leaseDuration: 30)
        var noRotation = Self.refreshed
        noRotation.refreshToken = nil
        try await stores.accounts.completeTokenRefresh(noRotation, for: .xCarol, holder: "a")
        let stored = try #require(try await stores.accounts.tokens(for: .xCarol))
        #expect(stored.accessToken == "x-access-2" && stored.refreshToken == "x-refresh-1")
    }

    @Test(arguments: StoreBackend.available)
    func noTokensMeansNoLeaseAndDeletedTokensTakeTheLeaseWithThem(_ backend: StoreBackend) async throws {
        let stores = try backend.makeHarness()
        let accounts = stores.accounts
        _ = try await accounts.createUser(.carol, identity: .xCarol, profile: IdentityProfile())
        #expect(try await accounts.beginTokenRefresh(for: .xCarol, holder: "a", leaseDuration: 30) == nil)
        let missing = await storeError { () throws(StoreError) in
            try await accounts.completeTokenRefresh(Self.refreshed, for: .xCarol, holder: "a")
        }
        #expect(missing?.code == .identityNotFound)
        #expect(try await accounts.tokens(for: .xCarol) == nil)

        try await accounts.saveTokens(Self.signedIn, for: .xCarol)
        _ = try await accounts.beginTokenRefresh(for: .xCarol, holder: "a", leaseDuration: 30)
        _ = try await accounts.deleteTokens(for: .xCarol)
        try await accounts.saveTokens(Self.signedIn, for: .xCarol)
        #expect(
            try await accounts.beginTokenRefresh(for: .xCarol, holder: "b", leaseDuration: 30)
                == .acquired(Self.signedIn))
    }

    @Test(arguments: StoreBackend.available)
    func refusesAnEmptyHolderAndAnUnusableDuration(_ backend: StoreBackend) async throws {
        let stores = try await Self.withTokens(backend)
        let accounts = stores.accounts
        for duration in [0, -5, Double.infinity, Double.nan] {
            let refused = await storeError { () throws(StoreError) in
                try await accounts.beginTokenRefresh(for: .xCarol, holder: "a", leaseDuration: duration)
            }
            #expect(refused?.code == .invalidValue)
        }
        let emptyHolder = await storeError { () throws(StoreError) in
            try await accounts.beginTokenRefresh(for: .xCarol, holder: "", leaseDuration: 30)
        }
        #expect(emptyHolder?.code == .invalidValue)
        let emptyRelease = await storeError { () throws(StoreError) in
            try await accounts.releaseTokenRefresh(for: .xCarol, holder: "")
        }
        #expect(emptyRelease?.code == .invalidValue)
        // Nothing was taken by the refused calls.
        #expect(
            try await accounts.beginTokenRefresh(for: .xCarol, holder: "a", leaseDuration: 30)
                == .acquired(Self.signedIn))
    }
}
