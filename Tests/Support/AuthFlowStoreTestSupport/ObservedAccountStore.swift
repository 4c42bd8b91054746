package import AuthFlowStores
import Synchronization

/// An ``AccountStore`` that forwards to an inner store, counting the calls by name, and may run a hook before
/// `createUser` (to stage a race).
package final class ObservedAccountStore: AccountStore {
    package let inner: any AccountStore
    private let counts = Mutex<[String: Int]>([:])
    /// Runs before each `createUser(_:identity:profile:tokens:)` reaches the inner store.
    package let beforeCreate: @Sendable (IdentityKey) async -> Void
    /// When set, `identity(_:)` answers `nil` (a store that lost the row the race wrote).
    package let hidesIdentities: Bool

    package init(
        _ inner: any AccountStore, hidesIdentities: Bool = false,
        beforeCreate: @escaping @Sendable (IdentityKey) async -> Void = { _ in }
    ) {
        self.inner = inner
        self.hidesIdentities = hidesIdentities
        self.beforeCreate = beforeCreate
    }

    /// How often the operation named `name` was called.
    package func count(_ name: String) -> Int { counts.withLock { $0[name, default: 0] } }

    private func note(_ name: String) { counts.withLock { $0[name, default: 0] += 1 } }

    package func identity(_ key: IdentityKey) async throws(StoreError) -> LinkedIdentity? {
        note("identity")
        return hidesIdentities ? nil : try await inner.identity(key)
    }
    package func user(_ id: UserID) async throws(StoreError) -> UserAccount? { try await inner.user(id) }
    package func users(withVerifiedEmail email: String) async throws(StoreError) -> [UserAccount] {
        note("usersWithVerifiedEmail")
        return try await inner.users(withVerifiedEmail: email)
    }
    package func users(after cursor: UserID?, limit: Int) async throws(StoreError) -> [UserAccount] {
        try await inner.users(after: cursor, limit: limit)
    }
    package func unlinkProvider(_ provider: String, from user: UserID) async throws(StoreError) -> [RemovedIdentity] {
        try await inner.unlinkProvider(provider, from: user)
    }
    package func deleteUser(_ id: UserID) async throws(StoreError) -> [RemovedIdentity] {
        try await inner.deleteUser(id)
    }
    package func saveTokens(_ tokens: StoredTokens, for identity: IdentityKey) async throws(StoreError) {
        try await inner.saveTokens(tokens, for: identity)
    }
    package func tokens(for identity: IdentityKey) async throws(StoreError) -> StoredTokens? {
        try await inner.tokens(for: identity)
    }
    package func tokens(ofUser user: UserID) async throws(StoreError) -> [IdentityKey: StoredTokens] {
        try await inner.tokens(ofUser: user)
    }
    package func deleteTokens(for identity: IdentityKey) async throws(StoreError) -> StoredTokens? {
        try await inner.deleteTokens(for: identity)
    }
    package func identity(provider: String, refreshToken identifier: RefreshTokenIdentifier) async throws(StoreError)
        -> IdentityKey?
    {
        try await inner.identity(provider: provider, refreshToken: identifier)
    }
    package func beginTokenRefresh(for identity: IdentityKey, holder: String, leaseDuration: Double)
        async throws(StoreError)
        -> RefreshLease?
    {
        try await inner.beginTokenRefresh(for: identity, holder: holder, leaseDuration: leaseDuration)
    }
    package func completeTokenRefresh(_ tokens: StoredTokens, for identity: IdentityKey, holder: String)
        async throws(StoreError)
    {
        try await inner.completeTokenRefresh(tokens, for: identity, holder: holder)
    }
    package func releaseTokenRefresh(for identity: IdentityKey, holder: String) async throws(StoreError) {
        try await inner.releaseTokenRefresh(for: identity, holder: holder)
    }
    package func createUser(_ id: UserID, identity: IdentityKey, profile: IdentityProfile, tokens: StoredTokens?)
        async throws(StoreError) -> UserAccount
    {
        note("createUser")
        await beforeCreate(identity)
        return try await inner.createUser(id, identity: identity, profile: profile, tokens: tokens)
    }
    package func linkIdentity(_ identity: IdentityKey, profile: IdentityProfile, to user: UserID, tokens: StoredTokens?)
        async throws(StoreError) -> LinkedIdentity
    {
        note("linkIdentity")
        return try await inner.linkIdentity(identity, profile: profile, to: user, tokens: tokens)
    }
    package func updateIdentityProfile(
        _ update: IdentityProfileUpdate, for identity: IdentityKey, tokens: StoredTokens?
    )
        async throws(StoreError) -> LinkedIdentity
    {
        note("updateIdentityProfile")
        return try await inner.updateIdentityProfile(update, for: identity, tokens: tokens)
    }
    package func putPendingProfile(_ profile: PendingProfile) async throws(StoreError) {
        note("putPendingProfile")
        try await inner.putPendingProfile(profile)
    }
    package func takePendingProfile(key: String) async throws(StoreError) -> PendingProfile? {
        note("takePendingProfile")
        return try await inner.takePendingProfile(key: key)
    }
    package func applyNotification(id: String, changes: [AccountChange]) async throws(StoreError) -> Bool {
        try await inner.applyNotification(id: id, changes: changes)
    }
    package func isNotificationApplied(id: String) async throws(StoreError) -> Bool {
        try await inner.isNotificationApplied(id: id)
    }
    package func checkHealth() async throws(StoreError) { try await inner.checkHealth() }
}
