import AuthFlowJOSE
import AuthFlowStoreTestSupport
import AuthFlowStores
import Foundation
import Testing

/// A sign-in's account write ending the browser's previous session in its own transaction
/// (`SessionEndingAccountStore`), on the SQLite and PostgreSQL stores: the session is gone exactly when the write
/// commits, a refused write keeps it, and a session store over another database is never ended this way.
@Suite struct SessionEndingWriteConformanceTests {
    static let profile = IdentityProfile(email: "alice@example.com", emailVerified: true, name: "Alice Liddell")

    /// The SQL backends (the in-memory stores keep no transaction to share).
    static var backends: [StoreBackend] { StoreBackend.available.filter { $0 != .memory } }

    static func session(_ stores: StoreHarness, _ id: String) async throws {
        try await stores.sessions.createSession(
            id: id,
            record: SessionRecord(
                userID: .alice, provider: "google", subject: "1089-alice", createdAt: StoreHarness.start,
                expiresAt: StoreHarness.start + 3600))
    }

    static func ending(_ stores: StoreHarness, _ id: String) throws -> any AccountStore {
        let accounts = try #require(stores.accounts as? any SessionEndingAccountStore)
        return try #require(accounts.endingSession(digest: Digest.sha256(Array(id.utf8)), keptIn: stores.sessions))
    }

    @Test(arguments: backends)
    func eachAccountWriteEndsTheSessionInItsTransaction(_ backend: StoreBackend) async throws {
        let stores = try backend.makeHarness()
        try await Self.session(stores, "old-create")
        try await Self.session(stores, "bystander")
        _ = try await Self.ending(stores, "old-create").createUser(
            .alice, identity: .googleAlice, profile: Self.profile, tokens: nil)
        #expect(try await stores.sessions.session(id: "old-create") == nil)
        #expect(try await stores.accounts.identity(.googleAlice)?.userID == .alice)

        try await Self.session(stores, "old-update")
        _ = try await Self.ending(stores, "old-update").updateIdentityProfile(
            IdentityProfileUpdate(name: "Alice L."), for: .googleAlice, tokens: nil)
        #expect(try await stores.sessions.session(id: "old-update") == nil)
        #expect(try await stores.accounts.identity(.googleAlice)?.name == "Alice L.")

        try await Self.session(stores, "old-link")
        _ = try await Self.ending(stores, "old-link").linkIdentity(
            .appleAlice, profile: Self.profile, to: .alice, tokens: nil)
        #expect(try await stores.sessions.session(id: "old-link") == nil)
        #expect(try await stores.accounts.identity(.appleAlice)?.userID == .alice)
        // Only the named session ends.
        #expect(try await stores.sessions.session(id: "bystander")?.userID == .alice)
    }

    @Test(arguments: backends)
    func aRefusedWriteKeepsTheSession(_ backend: StoreBackend) async throws {
        let stores = try backend.makeHarness()
        _ = try await stores.accounts.createUser(.bob, identity: .googleBob, profile: IdentityProfile())
        try await Self.session(stores, "kept")
        let ending = try Self.ending(stores, "kept")
        let taken = await storeError { () throws(StoreError) in
            try await ending.createUser(.alice, identity: .googleBob, profile: Self.profile, tokens: nil)
        }
        #expect(taken?.code == .identityAlreadyLinked)
        let missing = await storeError { () throws(StoreError) in
            try await ending.updateIdentityProfile(IdentityProfileUpdate(name: "x"), for: .xCarol, tokens: nil)
        }
        #expect(missing?.code == .identityNotFound)
        let noUser = await storeError { () throws(StoreError) in
            try await ending.linkIdentity(.googleAlice, profile: Self.profile, to: .carol, tokens: nil)
        }
        #expect(noUser?.code == .userNotFound)
        #expect(try await stores.sessions.session(id: "kept")?.userID == .alice)
    }

    @Test(arguments: backends)
    func sessionsInAnotherDatabaseAreNotEndedThisWay(_ backend: StoreBackend) async throws {
        let stores = try backend.makeHarness()
        let other = try backend.makeHarness()
        let accounts = try #require(stores.accounts as? any SessionEndingAccountStore)
        let digest = Digest.sha256(Array("elsewhere".utf8))
        #expect(accounts.endingSession(digest: digest, keptIn: other.sessions) == nil)
        #expect(accounts.endingSession(digest: digest, keptIn: InMemorySessionStore(clock: stores.clock)) == nil)
        // A digest that is not one is refused up front, not sent to the database.
        #expect(accounts.endingSession(digest: [1, 2, 3], keptIn: stores.sessions) == nil)
        #expect(accounts.endingSession(digest: digest, keptIn: stores.sessions) != nil)
    }
}
