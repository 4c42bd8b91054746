import AuthFlowJOSE
import AuthFlowStoreTestSupport
import AuthFlowStores
import Foundation
import Testing

/// Every ``AccountStore`` operation, run against the in-memory, SQLite and PostgreSQL implementations alike.
@Suite struct AccountStoreConformanceTests {
    static let aliceProfile = IdentityProfile(
        email: "Alice@Example.com", emailVerified: true, isPrivateEmail: false, name: "Alice Liddell")

    @Test(arguments: StoreBackend.available)
    func createsUserWithFirstIdentityAndFindsIt(_ backend: StoreBackend) async throws {
        let stores = try backend.makeHarness()
        let created = try await stores.accounts.createUser(.alice, identity: .appleAlice, profile: Self.aliceProfile)
        let identity = try #require(created.identities.first)
        #expect(created.id == .alice)
        #expect(created.createdAt == StoreHarness.start)
        #expect(created.identities.count == 1)
        #expect(identity.userID == .alice && identity.key == .appleAlice)
        #expect(identity.email == "Alice@Example.com" && identity.emailVerified && !identity.isPrivateEmail)
        #expect(identity.name == "Alice Liddell" && !identity.isDisabled && !identity.emailDisabled)
        #expect(identity.createdAt == StoreHarness.start && identity.updatedAt == StoreHarness.start)

        #expect(try await stores.accounts.identity(.appleAlice) == identity)
        #expect(try await stores.accounts.user(.alice) == created)
        #expect(try await stores.accounts.identity(.googleBob) == nil)
        #expect(try await stores.accounts.user(.bob) == nil)
    }

    @Test(arguments: StoreBackend.available)
    func listsUsersInPagesAfterACursor(_ backend: StoreBackend) async throws {
        let stores = try backend.makeHarness()
        #expect(try await stores.accounts.users(after: nil, limit: 10).isEmpty)
        // Created out of id order: the list follows the ids, not the creation times.
        _ = try await stores.accounts.createUser(.carol, identity: .xCarol, profile: IdentityProfile())
        _ = try await stores.accounts.createUser(.alice, identity: .appleAlice, profile: Self.aliceProfile)
        _ = try await stores.accounts.linkIdentity(.googleAlice, profile: IdentityProfile(), to: .alice)
        _ = try await stores.accounts.createUser(.bob, identity: .googleBob, profile: IdentityProfile(name: "Bob"))

        let all = try await stores.accounts.users(after: nil, limit: 10)
        #expect(all.map(\.id) == [.alice, .bob, .carol])
        #expect(all.first == (try await stores.accounts.user(.alice)))
        #expect(all.first?.identities.map(\.key) == [.appleAlice, .googleAlice])

        let first = try await stores.accounts.users(after: nil, limit: 2)
        #expect(first.map(\.id) == [.alice, .bob])
        let second = try await stores.accounts.users(after: first.last?.id, limit: 2)
        #expect(second.map(\.id) == [.carol])
        #expect(try await stores.accounts.users(after: .carol, limit: 2).isEmpty)

        _ = try await stores.accounts.deleteUser(.bob)
        #expect(try await stores.accounts.users(after: .alice, limit: 10).map(\.id) == [.carol])

        let noPage = await storeError { () throws(StoreError) in
            try await stores.accounts.users(after: nil, limit: 0)
        }
        #expect(noPage?.code == .invalidValue)
    }

    @Test(arguments: StoreBackend.available)
    func refusesDuplicateUsersAndIdentitiesStoringNothing(_ backend: StoreBackend) async throws {
        let stores = try backend.makeHarness()
        _ = try await stores.accounts.createUser(.alice, identity: .appleAlice, profile: Self.aliceProfile)

        let duplicateUser = await storeError { () throws(StoreError) in
            try await stores.accounts.createUser(.alice, identity: .googleBob, profile: IdentityProfile())
        }
        #expect(duplicateUser?.code == .duplicateUser)
        #expect(duplicateUser?.operation == "createUser")
        #expect(try await stores.accounts.identity(.googleBob) == nil)

        let linkedElsewhere = await storeError { () throws(StoreError) in
            try await stores.accounts.createUser(.bob, identity: .appleAlice, profile: IdentityProfile())
        }
        #expect(linkedElsewhere?.code == .identityAlreadyLinked)
        #expect(try await stores.accounts.user(.bob) == nil)
    }

    @Test(arguments: StoreBackend.available)
    func linksIdentitiesAndRefusesOnesLinkedElsewhere(_ backend: StoreBackend) async throws {
        let stores = try backend.makeHarness()
        _ = try await stores.accounts.createUser(.alice, identity: .appleAlice, profile: Self.aliceProfile)
        _ = try await stores.accounts.createUser(.bob, identity: .googleBob, profile: IdentityProfile(name: "Bob"))
        stores.clock.advance(by: 60)

        let linked = try await stores.accounts.linkIdentity(
            .googleAlice, profile: IdentityProfile(email: "alice@gmail.example", emailVerified: true), to: .alice)
        #expect(linked.userID == .alice && linked.createdAt == StoreHarness.start.addingTimeInterval(60))
        let account = try #require(try await stores.accounts.user(.alice))
        #expect(account.identities.map(\.key) == [.appleAlice, .googleAlice])

        // Linking again to the same user changes nothing.
        stores.clock.advance(by: 60)
        let again = try await stores.accounts.linkIdentity(
            .googleAlice, profile: IdentityProfile(name: "X"), to: .alice)
        #expect(again == linked)

        let elsewhere = await storeError { () throws(StoreError) in
            try await stores.accounts.linkIdentity(.googleBob, profile: IdentityProfile(), to: .alice)
        }
        #expect(elsewhere?.code == .identityAlreadyLinked)
        #expect(try await stores.accounts.identity(.googleBob)?.userID == .bob)

        let noUser = await storeError { () throws(StoreError) in
            try await stores.accounts.linkIdentity(.xCarol, profile: IdentityProfile(), to: .carol)
        }
        #expect(noUser?.code == .userNotFound)
        #expect(try await stores.accounts.identity(.xCarol) == nil)
    }

    @Test(arguments: StoreBackend.available)
    func findsUsersOnlyByVerifiedEnabledEmail(_ backend: StoreBackend) async throws {
        let stores = try backend.makeHarness()
        _ = try await stores.accounts.createUser(.alice, identity: .appleAlice, profile: Self.aliceProfile)
        stores.clock.advance(by: 1)
        _ = try await stores.accounts.createUser(
            .bob, identity: .googleBob, profile: IdentityProfile(email: "alice@example.com", emailVerified: false))
        stores.clock.advance(by: 1)
        _ = try await stores.accounts.createUser(
            .carol, identity: .xCarol, profile: IdentityProfile(email: "ALICE@example.COM", emailVerified: true))

        var found = try await stores.accounts.users(withVerifiedEmail: "alice@EXAMPLE.com")
        #expect(found.map(\.id) == [.alice, .carol])
        #expect(found.first?.identities.map(\.key) == [.appleAlice])

        _ = try await stores.accounts.setIdentityDisabled(true, for: .xCarol)
        found = try await stores.accounts.users(withVerifiedEmail: "alice@example.com")
        #expect(found.map(\.id) == [.alice])
        #expect(try await stores.accounts.users(withVerifiedEmail: "nobody@example.com").isEmpty)
    }

    @Test(arguments: StoreBackend.available)
    func unlinksAProviderReturningItsTokensButNeverTheLastIdentity(_ backend: StoreBackend) async throws {
        let stores = try backend.makeHarness()
        _ = try await stores.accounts.createUser(.alice, identity: .appleAlice, profile: Self.aliceProfile)
        _ = try await stores.accounts.linkIdentity(.googleAlice, profile: IdentityProfile(), to: .alice)
        _ = try await stores.accounts.linkIdentity(.googleAliceWork, profile: IdentityProfile(), to: .alice)
        let googleTokens = StoredTokens(accessToken: "ya29.access", refreshToken: "1//refresh-google")
        try await stores.accounts.saveTokens(googleTokens, for: .googleAlice)

        let removed = try await stores.accounts.unlinkProvider("google", from: .alice)
        #expect(removed.map(\.identity.key) == [.googleAlice, .googleAliceWork])
        #expect(removed.first?.tokens == googleTokens)
        #expect(removed.last?.tokens == nil)
        #expect(try await stores.accounts.identity(.googleAlice) == nil)
        #expect(try await stores.accounts.tokens(for: .googleAlice) == nil)
        #expect(try await stores.accounts.user(.alice)?.identities.map(\.key) == [.appleAlice])

        let last = await storeError { () throws(StoreError) in
            try await stores.accounts.unlinkProvider("apple", from: .alice)
        }
        #expect(last?.code == .lastIdentity)
        #expect(try await stores.accounts.identity(.appleAlice) != nil)

        let notLinked = await storeError { () throws(StoreError) in
            try await stores.accounts.unlinkProvider("facebook", from: .alice)
        }
        #expect(notLinked?.code == .identityNotFound)
        let noUser = await storeError { () throws(StoreError) in
            try await stores.accounts.unlinkProvider("apple", from: .bob)
        }
        #expect(noUser?.code == .userNotFound)
    }

    @Test(arguments: StoreBackend.available)
    func deletesAUserWithItsIdentitiesAndTokens(_ backend: StoreBackend) async throws {
        let stores = try backend.makeHarness()
        _ = try await stores.accounts.createUser(.alice, identity: .appleAlice, profile: Self.aliceProfile)
        _ = try await stores.accounts.linkIdentity(.googleAlice, profile: IdentityProfile(), to: .alice)
        _ = try await stores.accounts.createUser(.bob, identity: .googleBob, profile: IdentityProfile())
        let appleTokens = StoredTokens(accessToken: "a.apple", refreshToken: "r.apple")
        let googleTokens = StoredTokens(accessToken: "a.google", refreshToken: nil, scope: "openid email")
        try await stores.accounts.saveTokens(appleTokens, for: .appleAlice)
        try await stores.accounts.saveTokens(googleTokens, for: .googleAlice)
        try await stores.accounts.saveTokens(StoredTokens(accessToken: "a.bob", refreshToken: "r.bob"), for: .googleBob)

        #expect(
            try await stores.accounts.tokens(ofUser: .alice) == [.appleAlice: appleTokens, .googleAlice: googleTokens])
        let removed = try await stores.accounts.deleteUser(.alice)
        #expect(removed.map(\.identity.key) == [.appleAlice, .googleAlice])
        #expect(removed.map(\.tokens) == [appleTokens, googleTokens])

        #expect(try await stores.accounts.user(.alice) == nil)
        #expect(try await stores.accounts.identity(.appleAlice) == nil)
        #expect(try await stores.accounts.tokens(for: .appleAlice) == nil)
        // The same identity can start over as a new user.
        _ = try await stores.accounts.createUser(.carol, identity: .appleAlice, profile: IdentityProfile())
        #expect(try await stores.accounts.tokens(for: .appleAlice) == nil)
        #expect(try await stores.accounts.tokens(for: .googleBob)?.refreshToken == "r.bob")

        let again = await storeError { () throws(StoreError) in try await stores.accounts.deleteUser(.alice) }
        #expect(again?.code == .userNotFound)
        let tokensOfNobody = await storeError { () throws(StoreError) in
            try await stores.accounts.tokens(ofUser: .alice)
        }
        #expect(tokensOfNobody?.code == .userNotFound)
    }

    @Test(arguments: StoreBackend.available)
    func savesTokensKeepingTheRefreshTokenWhenOmitted(_ backend: StoreBackend) async throws {
        let stores = try backend.makeHarness()
        _ = try await stores.accounts.createUser(.alice, identity: .googleAlice, profile: Self.aliceProfile)
        #expect(try await stores.accounts.tokens(for: .googleAlice) == nil)

        let first = StoredTokens(
            accessToken: "ya29.first", refreshToken: "1//refresh", accessTokenExpiresAt: StoreHarness.start + 3600,
            scope: "openid email")
        try await stores.accounts.saveTokens(first, for: .googleAlice)
        #expect(try await stores.accounts.tokens(for: .googleAlice) == first)

        let second = StoredTokens(accessToken: "ya29.second", refreshToken: nil, accessTokenExpiresAt: nil, scope: nil)
        try await stores.accounts.saveTokens(second, for: .googleAlice)
        #expect(
            try await stores.accounts.tokens(for: .googleAlice)
                == StoredTokens(accessToken: "ya29.second", refreshToken: "1//refresh"))

        let third = StoredTokens(accessToken: nil, refreshToken: "1//rotated")
        try await stores.accounts.saveTokens(third, for: .googleAlice)
        #expect(try await stores.accounts.tokens(for: .googleAlice) == third)

        #expect(try await stores.accounts.deleteTokens(for: .googleAlice) == third)
        #expect(try await stores.accounts.deleteTokens(for: .googleAlice) == nil)
        #expect(try await stores.accounts.tokens(for: .googleAlice) == nil)

        let unlinked = await storeError { () throws(StoreError) in
            try await stores.accounts.saveTokens(first, for: .googleBob)
        }
        #expect(unlinked?.code == .identityNotFound)
        #expect(try await stores.accounts.tokens(for: .googleBob) == nil)
    }

    /// The DPoP key (RFC 9449) is kept with the tokens (sealed inside the token columns in the SQL stores), kept
    /// when a refresh brings no new key, and read back whole, so a refresh after a restart proves possession.
    @Test(arguments: StoreBackend.available)
    func keepsTheDPoPKeyWithTheTokens(_ backend: StoreBackend) async throws {
        let stores = try backend.makeHarness()
        _ = try await stores.accounts.createUser(.alice, identity: .googleAlice, profile: Self.aliceProfile)
        let key = try JWK.generateP256()
        var bound = StoredTokens(accessToken: "dpop.access", refreshToken: "dpop.refresh", scope: "openid")
        bound.dpopKey = key
        try await stores.accounts.saveTokens(bound, for: .googleAlice)
        let read = try #require(try await stores.accounts.tokens(for: .googleAlice))
        #expect(read == bound)
        #expect(read.dpopKey?.isPrivate == true)
        #expect(read.dpopKey?.thumbprint() == key.thumbprint())
        #expect(!"\(read)".contains("dpop.access") && "\(read)".contains("dpop: <redacted>"))

        // A refresh's answer without a new refresh token or key keeps both.
        try await stores.accounts.saveTokens(
            StoredTokens(accessToken: "dpop.access.2", refreshToken: nil), for: .googleAlice)
        let refreshed = try #require(try await stores.accounts.tokens(for: .googleAlice))
        #expect(refreshed.refreshToken == "dpop.refresh")
        #expect(refreshed.dpopKey?.thumbprint() == key.thumbprint())
        #expect(try await stores.accounts.deleteTokens(for: .googleAlice)?.dpopKey?.thumbprint() == key.thumbprint())
    }

    @Test(arguments: StoreBackend.available)
    func keepsTheClientTokensWereIssuedToWithTheRefreshToken(_ backend: StoreBackend) async throws {
        let stores = try backend.makeHarness()
        _ = try await stores.accounts.createUser(.alice, identity: .appleAlice, profile: Self.aliceProfile)
        // Apple's native code exchange: the refresh token belongs to the app's bundle id.
        let native = StoredTokens(accessToken: "a.native", refreshToken: "r.native", clientID: "com.example.ios")
        try await stores.accounts.saveTokens(native, for: .appleAlice)
        #expect(try await stores.accounts.tokens(for: .appleAlice) == native)
        // A sign-in without a refresh token keeps the stored one with its client.
        try await stores.accounts.saveTokens(StoredTokens(accessToken: "a.web", refreshToken: nil), for: .appleAlice)
        #expect(
            try await stores.accounts.tokens(for: .appleAlice)
                == StoredTokens(accessToken: "a.web", refreshToken: "r.native", clientID: "com.example.ios"))
        // A new refresh token brings its own client (none: the provider's client_id).
        let web = StoredTokens(accessToken: "a.web2", refreshToken: "r.web")
        try await stores.accounts.saveTokens(web, for: .appleAlice)
        #expect(try await stores.accounts.tokens(for: .appleAlice) == web)
        #expect(try await stores.accounts.tokens(ofUser: .alice)[.appleAlice] == web)
    }

    @Test(arguments: StoreBackend.available)
    func disablesAndReenablesIdentities(_ backend: StoreBackend) async throws {
        let stores = try backend.makeHarness()
        _ = try await stores.accounts.createUser(.alice, identity: .appleAlice, profile: Self.aliceProfile)
        stores.clock.advance(by: 10)
        let disabled = try await stores.accounts.setIdentityDisabled(true, for: .appleAlice)
        #expect(disabled.isDisabled && disabled.updatedAt == StoreHarness.start + 10)
        #expect(try await stores.accounts.identity(.appleAlice) == disabled)
        stores.clock.advance(by: 10)
        // Setting the same value again changes nothing, not even updatedAt.
        #expect(try await stores.accounts.setIdentityDisabled(true, for: .appleAlice) == disabled)
        let enabled = try await stores.accounts.setIdentityDisabled(false, for: .appleAlice)
        #expect(!enabled.isDisabled && enabled.updatedAt == StoreHarness.start + 20)

        let unknown = await storeError { () throws(StoreError) in
            try await stores.accounts.setIdentityDisabled(true, for: .googleBob)
        }
        #expect(unknown?.code == .identityNotFound)
    }

    @Test(arguments: StoreBackend.available)
    func updatesProfilesWithoutForgettingAKnownName(_ backend: StoreBackend) async throws {
        let stores = try backend.makeHarness()
        _ = try await stores.accounts.createUser(.alice, identity: .appleAlice, profile: Self.aliceProfile)
        stores.clock.advance(by: 5)

        // A later sign-in without Apple's `user` field: no name, same email.
        let unchanged = try await stores.accounts.updateIdentityProfile(
            IdentityProfileUpdate(email: "alice@example.com", emailVerified: nil, name: nil), for: .appleAlice)
        #expect(unchanged.name == "Alice Liddell")
        #expect(unchanged.emailVerified)
        #expect(unchanged.email == "alice@example.com")
        #expect(unchanged.updatedAt == StoreHarness.start + 5)

        // Apple email-disabled, then a new relay address without a verification flag.
        let disabled = try await stores.accounts.updateIdentityProfile(
            IdentityProfileUpdate(isPrivateEmail: true, emailDisabled: true), for: .appleAlice)
        #expect(disabled.emailDisabled && disabled.isPrivateEmail && disabled.emailVerified)
        let moved = try await stores.accounts.updateIdentityProfile(
            IdentityProfileUpdate(email: "x1@privaterelay.appleid.com"), for: .appleAlice)
        #expect(moved.email == "x1@privaterelay.appleid.com" && !moved.emailVerified)
        #expect(moved.name == "Alice Liddell")

        let renamed = try await stores.accounts.updateIdentityProfile(
            IdentityProfileUpdate(emailVerified: true, name: "Alice L."), for: .appleAlice)
        #expect(renamed.name == "Alice L." && renamed.emailVerified)
        #expect(try await stores.accounts.identity(.appleAlice) == renamed)

        stores.clock.advance(by: 5)
        let noop = try await stores.accounts.updateIdentityProfile(IdentityProfileUpdate(), for: .appleAlice)
        #expect(noop == renamed)

        let unknown = await storeError { () throws(StoreError) in
            try await stores.accounts.updateIdentityProfile(IdentityProfileUpdate(name: "B"), for: .googleBob)
        }
        #expect(unknown?.code == .identityNotFound)
    }

    @Test(arguments: StoreBackend.available)
    func keepsPendingProfilesUntilTakenOnceOrExpired(_ backend: StoreBackend) async throws {
        let stores = try backend.makeHarness()
        let profile = PendingProfile(
            key: "state-1", provider: "apple", firstName: "Alice", lastName: "Liddell",
            expiresAt: StoreHarness.start + 600)
        try await stores.accounts.putPendingProfile(profile)

        let duplicate = await storeError { () throws(StoreError) in try await stores.accounts.putPendingProfile(profile)
        }
        #expect(duplicate?.code == .duplicateKey)

        #expect(try await stores.accounts.takePendingProfile(key: "state-1") == profile)
        #expect(try await stores.accounts.takePendingProfile(key: "state-1") == nil)
        #expect(try await stores.accounts.takePendingProfile(key: "never") == nil)
        #expect(profile.displayName == "Alice Liddell")

        let nameless = PendingProfile(
            key: "state-2", provider: "apple", firstName: nil, lastName: nil, expiresAt: StoreHarness.start + 600)
        try await stores.accounts.putPendingProfile(nameless)
        stores.clock.advance(by: 600)
        #expect(try await stores.accounts.takePendingProfile(key: "state-2") == nil)

        // An expired record's key can be used again.
        let expiring = PendingProfile(
            key: "state-3", provider: "apple", firstName: "A", lastName: nil, expiresAt: StoreHarness.start + 700)
        try await stores.accounts.putPendingProfile(expiring)
        stores.clock.advance(by: 100)
        let renewed = PendingProfile(
            key: "state-3", provider: "apple", firstName: "B", lastName: nil, expiresAt: StoreHarness.start + 1300)
        try await stores.accounts.putPendingProfile(renewed)
        #expect(try await stores.accounts.takePendingProfile(key: "state-3") == renewed)

        let past = await storeError { () throws(StoreError) in
            try await stores.accounts.putPendingProfile(
                PendingProfile(
                    key: "old", provider: "apple", firstName: "A", lastName: nil, expiresAt: StoreHarness.start))
        }
        #expect(past?.code == .invalidValue)
    }

    @Test(arguments: StoreBackend.available)
    func givesAPendingProfileToExactlyOneOfManyConcurrentTakers(_ backend: StoreBackend) async throws {
        let stores = try backend.makeHarness()
        try await stores.accounts.putPendingProfile(
            PendingProfile(
                key: "race", provider: "apple", firstName: "A", lastName: "B", expiresAt: StoreHarness.start + 60))
        let accounts = stores.accounts
        let winners = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<32 { group.addTask { try await accounts.takePendingProfile(key: "race") != nil } }
            var count = 0
            for try await won in group where won { count += 1 }
            return count
        }
        #expect(winners == 1)
    }

    @Test(arguments: StoreBackend.available)
    func createsOneUserWhenManyRaceForOneIdentity(_ backend: StoreBackend) async throws {
        let stores = try backend.makeHarness()
        let accounts = stores.accounts
        let outcomes = await withTaskGroup(of: StoreError.Code?.self) { group in
            for index in 0..<16 {
                group.addTask {
                    do throws(StoreError) {
                        _ = try await accounts.createUser(
                            UserID(rawValue: "racer-\(index)"), identity: .appleAlice, profile: IdentityProfile())
                        return nil
                    } catch {
                        return error.code
                    }
                }
            }
            var outcomes: [StoreError.Code?] = []
            for await outcome in group { outcomes.append(outcome) }
            return outcomes
        }
        #expect(outcomes.filter { $0 == nil }.count == 1)
        #expect(outcomes.compactMap { $0 }.allSatisfy { $0 == .identityAlreadyLinked })
        #expect(outcomes.count == 16)
    }

    @Test(arguments: StoreBackend.available)
    func appliesANotificationOnlyOnce(_ backend: StoreBackend) async throws {
        let stores = try backend.makeHarness()
        _ = try await stores.accounts.createUser(.alice, identity: .appleAlice, profile: Self.aliceProfile)
        try await stores.accounts.saveTokens(StoredTokens(accessToken: "a", refreshToken: "r"), for: .appleAlice)
        stores.clock.advance(by: 30)

        let changes: [AccountChange] = [
            .updateProfile(.appleAlice, IdentityProfileUpdate(isPrivateEmail: true, emailDisabled: true)),
            .setDisabled(.appleAlice, true),
        ]
        #expect(try await stores.accounts.applyNotification(id: "apple:jti-1", changes: changes))
        let applied = try #require(try await stores.accounts.identity(.appleAlice))
        #expect(applied.emailDisabled && applied.isPrivateEmail && applied.isDisabled)
        #expect(applied.updatedAt == StoreHarness.start + 30)

        // The user re-enables sign-in; a duplicate delivery of the old event must not undo that.
        _ = try await stores.accounts.setIdentityDisabled(false, for: .appleAlice)
        stores.clock.advance(by: 30)
        #expect(try await stores.accounts.applyNotification(id: "apple:jti-1", changes: changes) == false)
        #expect(try await stores.accounts.identity(.appleAlice)?.isDisabled == false)
        #expect(try await stores.accounts.tokens(for: .appleAlice)?.refreshToken == "r")

        // A notification with no changes still records its id.
        #expect(try await stores.accounts.isNotificationApplied(id: "apple:jti-2") == false)
        #expect(try await stores.accounts.applyNotification(id: "apple:jti-2", changes: []))
        #expect(try await stores.accounts.applyNotification(id: "apple:jti-2", changes: []) == false)
        #expect(try await stores.accounts.isNotificationApplied(id: "apple:jti-1"))
        #expect(try await stores.accounts.isNotificationApplied(id: "apple:jti-2"))
        #expect(try await stores.accounts.isNotificationApplied(id: "apple:jti-3") == false)
    }

    @Test(arguments: StoreBackend.available)
    func appliesNothingWhenOneChangeFails(_ backend: StoreBackend) async throws {
        let stores = try backend.makeHarness()
        let created = try await stores.accounts.createUser(.alice, identity: .appleAlice, profile: Self.aliceProfile)
        try await stores.accounts.saveTokens(StoredTokens(accessToken: "a", refreshToken: "r"), for: .appleAlice)
        stores.clock.advance(by: 30)

        let failing: [AccountChange] = [
            .setDisabled(.appleAlice, true),
            .deleteTokens(.appleAlice),
            .updateProfile(.googleBob, IdentityProfileUpdate(name: "nobody")),
        ]
        let error = await storeError { () throws(StoreError) in
            try await stores.accounts.applyNotification(id: "apple:jti-9", changes: failing)
        }
        #expect(error?.code == .identityNotFound)
        #expect(error?.operation == "applyNotification")
        #expect(try await stores.accounts.identity(.appleAlice) == created.identities.first)
        #expect(try await stores.accounts.tokens(for: .appleAlice)?.refreshToken == "r")

        // The id was not recorded: the corrected notification applies.
        #expect(try await stores.accounts.applyNotification(id: "apple:jti-9", changes: Array(failing.prefix(2))))
        #expect(try await stores.accounts.identity(.appleAlice)?.isDisabled == true)
        #expect(try await stores.accounts.tokens(for: .appleAlice) == nil)
    }

    @Test(arguments: StoreBackend.available)
    func removesEvenTheLastIdentityOnANotification(_ backend: StoreBackend) async throws {
        let stores = try backend.makeHarness()
        _ = try await stores.accounts.createUser(.alice, identity: .appleAlice, profile: Self.aliceProfile)
        try await stores.accounts.saveTokens(StoredTokens(accessToken: "a", refreshToken: "r"), for: .appleAlice)
        #expect(
            try await stores.accounts.applyNotification(
                id: "apple:consent-revoked-1", changes: [.removeIdentity(.appleAlice)]))
        #expect(try await stores.accounts.identity(.appleAlice) == nil)
        #expect(try await stores.accounts.tokens(for: .appleAlice) == nil)
        #expect(try await stores.accounts.user(.alice)?.identities == [])
        // Removing it again in a new notification fails as a whole.
        let again = await storeError { () throws(StoreError) in
            try await stores.accounts.applyNotification(
                id: "apple:account-delete-1", changes: [.removeIdentity(.appleAlice)])
        }
        #expect(again?.code == .identityNotFound)
    }

    @Test(arguments: StoreBackend.available)
    func refusesInvalidArgumentsWithoutEchoingThem(_ backend: StoreBackend) async throws {
        let stores = try backend.makeHarness()
        let empty = await storeError { () throws(StoreError) in
            try await stores.accounts.createUser(
                .alice, identity: IdentityKey(provider: "", subject: "s"), profile: .init())
        }
        #expect(empty?.code == .invalidValue)
        let emptyUser = await storeError { () throws(StoreError) in
            try await stores.accounts.createUser(UserID(rawValue: ""), identity: .appleAlice, profile: .init())
        }
        #expect(emptyUser?.code == .invalidValue)
        let hugeToken = String(repeating: "t", count: StoreValidation.maximumTokenBytes + 1)
        _ = try await stores.accounts.createUser(.alice, identity: .appleAlice, profile: .init())
        let tooLong = await storeError { () throws(StoreError) in
            try await stores.accounts.saveTokens(
                StoredTokens(accessToken: hugeToken, refreshToken: nil), for: .appleAlice)
        }
        #expect(tooLong?.code == .invalidValue)
        #expect(tooLong.map { !$0.message.contains("ttttttttt") } == true)
        let emptyNotification = await storeError { () throws(StoreError) in
            try await stores.accounts.applyNotification(id: "", changes: [])
        }
        #expect(emptyNotification?.code == .invalidValue)
        try await stores.accounts.checkHealth()
    }
}
