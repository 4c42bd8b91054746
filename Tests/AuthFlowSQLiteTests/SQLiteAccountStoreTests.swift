import AuthFlowJOSE
import AuthFlowSQL
import AuthFlowStoreTestSupport
import AuthFlowStores
import Foundation
import Testing

@testable import AuthFlowSQLite

/// What only the SQLite account store can show: tokens encrypted at rest and bound to their row, and single
/// use across connections.
@Suite struct SQLiteAccountStoreTests {
    static let refreshMarker = "1//refresh-PLAINTEXT-MARKER-7f3a9c"
    static let accessMarker = "ya29.access-PLAINTEXT-MARKER-51be0d"

    static func store(_ path: String, secret: String = StoreHarness.secret) throws -> SQLiteAccountStore {
        SQLiteAccountStore(
            database: try SQLiteDatabase(path: path), cipher: try TokenCipher(secret: secret, random: SystemRandom()),
            clock: ManualClock(StoreHarness.start))
    }

    static func containsBytes(_ haystack: [UInt8], _ needle: String) -> Bool {
        let needle = Array(needle.utf8)
        guard haystack.count >= needle.count else { return false }
        return (0...(haystack.count - needle.count)).contains { start in
            haystack[start] == needle[0] && Array(haystack[start..<(start + needle.count)]) == needle
        }
    }

    @Test func keepsNoPlaintextTokenInTheFile() async throws {
        let directory = try TemporaryDirectory()
        let store = try Self.store(directory.path("tokens.sqlite"))
        _ = try await store.createUser(.alice, identity: .googleAlice, profile: IdentityProfile(name: "Alice"))
        try await store.saveTokens(
            StoredTokens(accessToken: Self.accessMarker, refreshToken: Self.refreshMarker, scope: "openid"),
            for: .googleAlice)

        let bytes = try directory.bytesOnDisk("tokens.sqlite")
        #expect(Self.containsBytes(bytes, "1089-alice"))  // the row is on disk ...
        #expect(!Self.containsBytes(bytes, Self.refreshMarker))  // ... its tokens are not in clear
        #expect(!Self.containsBytes(bytes, Self.accessMarker))
        #expect(!Self.containsBytes(bytes, "PLAINTEXT-MARKER"))

        let row = try await store.database.perform("test") { connection throws(StoreError) in
            try connection.query(
                "SELECT access_token, refresh_token FROM identity_tokens", operation: "test"
            ).first
        }
        let sealedRefresh = try #require(try row?.blob(1))
        #expect(sealedRefresh.first == TokenCipher.formatVersion)
        #expect(sealedRefresh.count == Self.refreshMarker.utf8.count + TokenCipher.overhead)
        #expect(try await store.tokens(for: .googleAlice)?.refreshToken == Self.refreshMarker)
    }

    @Test func refusesATokenCopiedToAnotherRowOrColumn() async throws {
        let directory = try TemporaryDirectory()
        let store = try Self.store(directory.path("moved.sqlite"))
        _ = try await store.createUser(.alice, identity: .googleAlice, profile: IdentityProfile())
        _ = try await store.createUser(.bob, identity: .googleBob, profile: IdentityProfile())
        try await store.saveTokens(
            StoredTokens(accessToken: "a-alice", refreshToken: Self.refreshMarker), for: .googleAlice)
        try await store.saveTokens(StoredTokens(accessToken: "a-bob", refreshToken: "r-bob"), for: .googleBob)

        // An attacker with write access to the file moves Alice's refresh token into Bob's row.
        try await store.database.perform("test") { connection throws(StoreError) in
            try connection.run(
                """
                UPDATE identity_tokens SET refresh_token = (
                    SELECT refresh_token FROM identity_tokens WHERE subject = '1089-alice')
                WHERE subject = '3311-bob'
                """, operation: "test")
        }
        let moved = await storeError { () throws(StoreError) in try await store.tokens(for: .googleBob) }
        #expect(moved?.code == .corruptData)
        #expect(moved.map { !$0.description.contains(Self.refreshMarker) } == true)

        // ... or swaps Alice's access and refresh columns.
        try await store.database.perform("test") { connection throws(StoreError) in
            try connection.run(
                "UPDATE identity_tokens SET access_token = refresh_token WHERE subject = '1089-alice'",
                operation: "test")
        }
        let swapped = await storeError { () throws(StoreError) in try await store.tokens(for: .googleAlice) }
        #expect(swapped?.code == .corruptData)
    }

    @Test func refusesTokensUnderAnotherSecretButStillDeletesTheUser() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("rotated.sqlite")
        do {
            let store = try Self.store(path)
            _ = try await store.createUser(.alice, identity: .googleAlice, profile: IdentityProfile())
            try await store.saveTokens(StoredTokens(accessToken: "a", refreshToken: "r"), for: .googleAlice)
        }
        let rotated = try Self.store(path, secret: "a-completely-different-server-secret-value")
        let error = await storeError { () throws(StoreError) in try await rotated.tokens(for: .googleAlice) }
        #expect(error?.code == .corruptData)
        #expect(error?.message.contains("decryption_failed") == true)
        let ofUser = await storeError { () throws(StoreError) in try await rotated.tokens(ofUser: .alice) }
        #expect(ofUser?.code == .corruptData)

        let removed = try await rotated.deleteUser(.alice)
        #expect(removed.map(\.identity.key) == [.googleAlice])
        #expect(removed.first?.tokens == nil)
        #expect(try await rotated.user(.alice) == nil)
    }

    static func store(_ path: String, keyring: SecretKeyring) throws -> SQLiteAccountStore {
        SQLiteAccountStore(
            database: try SQLiteDatabase(path: path), cipher: try keyring.cipher(random: SystemRandom()),
            clock: ManualClock(StoreHarness.start))
    }

    @Test func opensTokensOfAPreviousSecretAndSealsThemAgainUnderTheCurrentOneWhenWritten() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("rotation.sqlite")
        let newSecret = "the-new-server-secret-fedcba9876543210"
        let refresh = "1//refresh-token-long-enough-for-a-prefix"
        do {
            let store = try Self.store(path)
            _ = try await store.createUser(.alice, identity: .googleAlice, profile: IdentityProfile())
            _ = try await store.createUser(.bob, identity: .googleBob, profile: IdentityProfile())
            try await store.saveTokens(StoredTokens(accessToken: "a-alice", refreshToken: refresh), for: .googleAlice)
            try await store.saveTokens(StoredTokens(accessToken: "a-bob", refreshToken: "r-bob"), for: .googleBob)
        }
        let rotated = try Self.store(
            path, keyring: try SecretKeyring(current: newSecret, previous: [StoreHarness.secret]))
        #expect(try await rotated.tokens(for: .googleAlice)?.refreshToken == refresh)
        #expect(try await rotated.tokens(ofUser: .bob)[.googleBob]?.accessToken == "a-bob")
        // The refresh-token prefix index written under the old secret is still found.
        let prefix = try #require(RefreshTokenIdentifier.prefix(of: refresh))
        #expect(try await rotated.identity(provider: "google", refreshToken: .prefix(prefix)) == .googleAlice)

        // Bob's tokens are written again (as a sign-in or refresh does): now under the new secret.
        try await rotated.saveTokens(StoredTokens(accessToken: "a-bob-2", refreshToken: "r-bob-2"), for: .googleBob)
        let dropped = try Self.store(path, keyring: try SecretKeyring(current: newSecret))
        #expect(try await dropped.tokens(for: .googleBob)?.refreshToken == "r-bob-2")
        // Alice's, never written again, are refused once the old secret is dropped; so is the old index.
        let error = await storeError { () throws(StoreError) in try await dropped.tokens(for: .googleAlice) }
        #expect(error?.code == .corruptData)
        #expect(error?.message.contains("server.previous_secrets") == true)
        #expect(try await dropped.identity(provider: "google", refreshToken: .prefix(prefix)) == nil)
    }

    /// The public initialiser derives the cipher from the secrets an app has: the same key as the server's keyring,
    /// opening what a previous secret sealed; a short secret is refused.
    @Test func thePublicInitialiserDerivesTheServersTokenKeyFromTheSecrets() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("public.sqlite")
        let newSecret = "the-new-server-secret-fedcba9876543210"
        let old = try Self.store(path)
        _ = try await old.createUser(.alice, identity: .googleAlice, profile: IdentityProfile())
        try await old.saveTokens(StoredTokens(accessToken: "a-alice", refreshToken: "r-alice"), for: .googleAlice)
        let stores = try SQLiteStores(
            database: try SQLiteDatabase(path: path), secret: newSecret, previousSecrets: [StoreHarness.secret],
            clock: ManualClock(StoreHarness.start), random: SystemRandom())
        #expect(try await stores.accounts.tokens(for: .googleAlice)?.refreshToken == "r-alice")
        #expect(throws: JOSEError.self) {
            _ = try SQLiteStores(
                database: try SQLiteDatabase(path: path), secret: "short", clock: ManualClock(StoreHarness.start),
                random: SystemRandom())
        }
    }

    @Test func takesAPendingProfileOnceAcrossTwoConnections() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("race.sqlite")
        let first = try Self.store(path)
        let second = try Self.store(path)
        for round in 0..<5 {
            let key = "state-\(round)"
            try await first.putPendingProfile(
                PendingProfile(
                    key: key, provider: "apple", firstName: "A", lastName: nil, expiresAt: StoreHarness.start + 60))
            let winners = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<24 {
                    let store = index.isMultiple(of: 2) ? first : second
                    group.addTask { try await store.takePendingProfile(key: key) != nil }
                }
                var count = 0
                for try await won in group where won { count += 1 }
                return count
            }
            #expect(winners == 1, "round \(round)")
        }
    }

    @Test func seesWritesOfAnotherConnectionImmediately() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("shared.sqlite")
        let writer = try Self.store(path)
        let reader = try Self.store(path)
        _ = try await writer.createUser(.alice, identity: .appleAlice, profile: IdentityProfile(name: "Alice"))
        #expect(try await reader.identity(.appleAlice)?.name == "Alice")
        let error = await storeError { () throws(StoreError) in
            try await reader.createUser(.bob, identity: .appleAlice, profile: IdentityProfile())
        }
        #expect(error?.code == .identityAlreadyLinked)
    }
}
