import AuthFlowJOSE
import AuthFlowStoreTestSupport
import AuthFlowStores
import Foundation
import Testing

/// Every ``PasskeyStore`` operation, against the in-memory, SQLite and PostgreSQL account stores alike.
/// Serialized: each case opens a fresh PostgreSQL database, and the whole test run shares the server's connections.
@Suite(.serialized) struct PasskeyStoreConformanceTests {
    static let aliceHandle = IdentityKey(provider: "passkey", subject: "YWxpY2UtaGFuZGxl")
    static let bobHandle = IdentityKey(provider: "passkey", subject: "Ym9iLWhhbmRsZQ")

    static func credential(_ id: UInt8, _ identity: IdentityKey, _ user: UserID, at time: Date = StoreHarness.start)
        -> PasskeyCredential
    {
        PasskeyCredential(
            id: [id, 0xA0, 0xB1], identity: identity, userID: user, publicKey: [0xA5, 0x01, 0x02, id],
            algorithm: -7, signCount: 0, backupEligible: true, backedUp: false, aaguid: Array(repeating: 0, count: 16),
            transports: ["internal", "hybrid"], attestationFormat: "none", attestationVerified: false,
            name: "Passkey \(id)", createdAt: time)
    }

    static func store(_ harness: StoreHarness) throws -> any PasskeyStore {
        try #require(harness.accounts as? any PasskeyStore)
    }

    @Test(arguments: StoreBackend.available)
    func signsUpWithAPasskeyAndFindsIt(_ backend: StoreBackend) async throws {
        let stores = try backend.makeHarness()
        let passkeys = try Self.store(stores)
        let first = Self.credential(1, Self.aliceHandle, .alice)
        let account = try await passkeys.createUser(.alice, profile: IdentityProfile(name: "Alice"), passkey: first)
        #expect(account.identities.map(\.key) == [Self.aliceHandle])
        #expect(try await passkeys.passkey(first.id) == first)
        #expect(try await passkeys.passkeys(of: .alice) == [first])
        #expect(try await passkeys.passkeys(of: .bob).isEmpty)
        #expect(try await passkeys.passkey([9, 9]) == nil)
        #expect(try await stores.accounts.identity(Self.aliceHandle)?.userID == .alice)
    }

    @Test(arguments: StoreBackend.available)
    func refusesACredentialIDRegisteredBeforeToAnyoneStoringNothing(_ backend: StoreBackend) async throws {
        let stores = try backend.makeHarness()
        let passkeys = try Self.store(stores)
        let first = Self.credential(1, Self.aliceHandle, .alice)
        _ = try await passkeys.createUser(.alice, profile: IdentityProfile(), passkey: first)

        var again = Self.credential(1, Self.bobHandle, .bob)
        again.publicKey = [1, 2, 3]
        let signUp = await storeError { () throws(StoreError) in
            try await passkeys.createUser(.bob, profile: IdentityProfile(), passkey: again)
        }
        #expect(signUp?.code == .duplicateCredential)
        #expect(try await stores.accounts.user(.bob) == nil)
        #expect(try await stores.accounts.identity(Self.bobHandle) == nil)

        let added = await storeError { () throws(StoreError) in
            try await passkeys.addPasskey(Self.credential(1, Self.aliceHandle, .alice), profile: IdentityProfile())
        }
        #expect(added?.code == .duplicateCredential)
        #expect(try await passkeys.passkey(first.id) == first)
    }

    @Test(arguments: StoreBackend.available)
    func addsPasskeysToAnAccountOfAnotherProvider(_ backend: StoreBackend) async throws {
        let stores = try backend.makeHarness()
        let passkeys = try Self.store(stores)
        _ = try await stores.accounts.createUser(.alice, identity: .googleAlice, profile: IdentityProfile())
        let first = Self.credential(1, Self.aliceHandle, .alice)
        let second = Self.credential(2, Self.aliceHandle, .alice, at: StoreHarness.start.addingTimeInterval(60))
        try await passkeys.addPasskey(first, profile: IdentityProfile(name: "Alice"))
        try await passkeys.addPasskey(second, profile: IdentityProfile(name: "Alice"))
        #expect(try await passkeys.passkeys(of: .alice) == [first, second])
        let identities = try await stores.accounts.user(.alice)?.identities.map(\.key)
        #expect(identities.map(Set.init) == [.googleAlice, Self.aliceHandle])

        let noUser = await storeError { () throws(StoreError) in
            try await passkeys.addPasskey(Self.credential(3, Self.bobHandle, .bob), profile: IdentityProfile())
        }
        #expect(noUser?.code == .userNotFound)
        #expect(try await passkeys.passkey(Self.credential(3, Self.bobHandle, .bob).id) == nil)

        _ = try await stores.accounts.createUser(.bob, identity: .googleBob, profile: IdentityProfile())
        let othersHandle = await storeError { () throws(StoreError) in
            try await passkeys.addPasskey(Self.credential(4, Self.aliceHandle, .bob), profile: IdentityProfile())
        }
        #expect(othersHandle?.code == .identityAlreadyLinked)
        #expect(try await passkeys.passkeys(of: .bob).isEmpty)
    }

    @Test(arguments: StoreBackend.available)
    func recordsUsesAndRenames(_ backend: StoreBackend) async throws {
        let stores = try backend.makeHarness()
        let passkeys = try Self.store(stores)
        let first = Self.credential(1, Self.aliceHandle, .alice)
        _ = try await passkeys.createUser(.alice, profile: IdentityProfile(), passkey: first)
        let later = StoreHarness.start.addingTimeInterval(120)
        try await passkeys.recordPasskeyUse(first.id, signCount: 7, backedUp: true, at: later)
        try await passkeys.renamePasskey(first.id, of: .alice, to: "Work laptop")
        let stored = try #require(try await passkeys.passkey(first.id))
        #expect(stored.signCount == 7 && stored.backedUp && stored.lastUsedAt == later && stored.name == "Work laptop")

        let unknown = await storeError { () throws(StoreError) in
            try await passkeys.recordPasskeyUse([9], signCount: 1, backedUp: false, at: later)
        }
        #expect(unknown?.code == .credentialNotFound)
        let othersRename = await storeError { () throws(StoreError) in
            try await passkeys.renamePasskey(first.id, of: .bob, to: "Mine")
        }
        #expect(othersRename?.code == .credentialNotFound)
        let badName = await storeError { () throws(StoreError) in
            try await passkeys.renamePasskey(first.id, of: .alice, to: "line\nbreak")
        }
        #expect(badName?.code == .invalidValue)
        #expect(try await passkeys.passkey(first.id)?.name == "Work laptop")
    }

    @Test(arguments: StoreBackend.available)
    func deletingRefusesTheLastWayToSignIn(_ backend: StoreBackend) async throws {
        let stores = try backend.makeHarness()
        let passkeys = try Self.store(stores)
        let first = Self.credential(1, Self.aliceHandle, .alice)
        let second = Self.credential(2, Self.aliceHandle, .alice)
        _ = try await passkeys.createUser(.alice, profile: IdentityProfile(), passkey: first)
        try await passkeys.addPasskey(second, profile: IdentityProfile())

        #expect(try await passkeys.deletePasskey(second.id, of: .alice) == second)
        let last = await storeError { () throws(StoreError) in try await passkeys.deletePasskey(first.id, of: .alice) }
        #expect(last?.code == .lastIdentity)
        #expect(try await passkeys.passkey(first.id) == first)
        let others = await storeError { () throws(StoreError) in try await passkeys.deletePasskey(first.id, of: .bob) }
        #expect(others?.code == .credentialNotFound)

        // With another identity, the last passkey goes and takes its identity with it.
        _ = try await stores.accounts.linkIdentity(.googleAlice, profile: IdentityProfile(), to: .alice)
        #expect(try await passkeys.deletePasskey(first.id, of: .alice) == first)
        #expect(try await stores.accounts.identity(Self.aliceHandle) == nil)
        #expect(try await passkeys.passkeys(of: .alice).isEmpty)
    }

    @Test(arguments: StoreBackend.available)
    func credentialsGoWithTheAccountAndWithTheIdentity(_ backend: StoreBackend) async throws {
        let stores = try backend.makeHarness()
        let passkeys = try Self.store(stores)
        let first = Self.credential(1, Self.aliceHandle, .alice)
        _ = try await passkeys.createUser(.alice, profile: IdentityProfile(), passkey: first)
        _ = try await stores.accounts.deleteUser(.alice)
        #expect(try await passkeys.passkey(first.id) == nil)

        let bobs = Self.credential(2, Self.bobHandle, .bob)
        _ = try await stores.accounts.createUser(.bob, identity: .googleBob, profile: IdentityProfile())
        try await passkeys.addPasskey(bobs, profile: IdentityProfile())
        _ = try await stores.accounts.unlinkProvider("passkey", from: .bob)
        #expect(try await passkeys.passkey(bobs.id) == nil)
        // The id is free again once its credential is gone.
        _ = try await passkeys.createUser(.alice, profile: IdentityProfile(), passkey: first)
        #expect(try await passkeys.passkey(first.id)?.userID == .alice)
    }

    @Test(arguments: StoreBackend.available)
    func refusesOversizedCredentialIDs(_ backend: StoreBackend) async throws {
        let stores = try backend.makeHarness()
        let passkeys = try Self.store(stores)
        var credential = Self.credential(1, Self.aliceHandle, .alice)
        credential.id = Array(repeating: 7, count: PasskeyCredential.maximumIDLength + 1)
        let refused = await storeError { () throws(StoreError) in
            try await passkeys.createUser(.alice, profile: IdentityProfile(), passkey: credential)
        }
        #expect(refused?.code == .invalidValue)
        #expect(try await stores.accounts.user(.alice) == nil)
    }
}
