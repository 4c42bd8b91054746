import AuthFlow
import Synchronization

/// An ``AccountStore`` that forwards to an inner store, counting the calls by name, and may run a hook before
/// `createUser` (to stage a race).
final class ObservedAccountStore: AccountStore {
    let inner: any AccountStore
    private let counts = Mutex<[String: Int]>([:])
    /// Runs before each `createUser(_:identity:profile:tokens:)` reaches the inner store.
    let beforeCreate: @Sendable (IdentityKey) async -> Void
    /// When set, `identity(_:)` answers `nil` (a store that lost the row the race wrote).
    let hidesIdentities: Bool

    init(
        _ inner: any AccountStore, hidesIdentities: Bool = false,
        beforeCreate: @escaping @Sendable (IdentityKey) async -> Void = { _ in }
    ) {
        self.inner = inner
        self.hidesIdentities = hidesIdentities
        self.beforeCreate = beforeCreate
    }

    /// How often the operation named `name` was called.
    func count(_ name: String) -> Int { counts.withLock { $0[name, default: 0] } }

    private func note(_ name: String) { counts.withLock { $0[name, default: 0] += 1 } }

    func identity(_ key: IdentityKey) async throws(StoreError) -> LinkedIdentity? {
        note("identity")
        return hidesIdentities ? nil : try await inner.identity(key)
    }
    func user(_ id: UserID) async throws(StoreError) -> UserAccount? { try await inner.user(id) }
    func users(withVerifiedEmail email: String) async throws(StoreError) -> [UserAccount] {
        note("usersWithVerifiedEmail")
        return try await inner.users(withVerifiedEmail: email)
    }
    func users(after cursor: UserID?, limit: Int) async throws(StoreError) -> [UserAccount] {
        try await inner.users(after: cursor, limit: limit)
    }
    func unlinkProvider(_ provider: String, from user: UserID) async throws(StoreError) -> [RemovedIdentity] {
        try await inner.unlinkProvider(provider, from: user)
    }
    func deleteUser(_ id: UserID) async throws(StoreError) -> [RemovedIdentity] { try await inner.deleteUser(id) }
    func saveTokens(_ tokens: StoredTokens, for identity: IdentityKey) async throws(StoreError) {
        try await inner.saveTokens(tokens, for: identity)
    }
    func tokens(for identity: IdentityKey) async throws(StoreError) -> StoredTokens? {
        try await inner.tokens(for: identity)
    }
    func tokens(ofUser user: UserID) async throws(StoreError) -> [IdentityKey: StoredTokens] {
        try await inner.tokens(ofUser: user)
    }
    func deleteTokens(for identity: IdentityKey) async throws(StoreError) -> StoredTokens? {
        try await inner.deleteTokens(for: identity)
    }
    func identity(provider: String, refreshToken identifier: RefreshTokenIdentifier) async throws(StoreError)
        -> IdentityKey?
    {
        try await inner.identity(provider: provider, refreshToken: identifier)
    }
    func beginTokenRefresh(for identity: IdentityKey, holder: String, leaseDuration: Double) async throws(StoreError)
        -> RefreshLease?
    {
        try await inner.beginTokenRefresh(for: identity, holder: holder, leaseDuration: leaseDuration)
    }
    func completeTokenRefresh(_ tokens: StoredTokens, for identity: IdentityKey, holder: String)
        async throws(StoreError)
    {
        try await inner.completeTokenRefresh(tokens, for: identity, holder: holder)
    }
    func releaseTokenRefresh(for identity: IdentityKey, holder: String) async throws(StoreError) {
        try await inner.releaseTokenRefresh(for: identity, holder: holder)
    }
    func createUser(_ id: UserID, identity: IdentityKey, profile: IdentityProfile, tokens: StoredTokens?)
        async throws(StoreError) -> UserAccount
    {
        note("createUser")
        await beforeCreate(identity)
        return try await inner.createUser(id, identity: identity, profile: profile, tokens: tokens)
    }
    func linkIdentity(_ identity: IdentityKey, profile: IdentityProfile, to user: UserID, tokens: StoredTokens?)
        async throws(StoreError) -> LinkedIdentity
    {
        note("linkIdentity")
        return try await inner.linkIdentity(identity, profile: profile, to: user, tokens: tokens)
    }
    func updateIdentityProfile(_ update: IdentityProfileUpdate, for identity: IdentityKey, tokens: StoredTokens?)
        async throws(StoreError) -> LinkedIdentity
    {
        note("updateIdentityProfile")
        return try await inner.updateIdentityProfile(update, for: identity, tokens: tokens)
    }
    func putPendingProfile(_ profile: PendingProfile) async throws(StoreError) {
        note("putPendingProfile")
        try await inner.putPendingProfile(profile)
    }
    func takePendingProfile(key: String) async throws(StoreError) -> PendingProfile? {
        note("takePendingProfile")
        return try await inner.takePendingProfile(key: key)
    }
    func applyNotification(id: String, changes: [AccountChange]) async throws(StoreError) -> Bool {
        try await inner.applyNotification(id: id, changes: changes)
    }
    func isNotificationApplied(id: String) async throws(StoreError) -> Bool {
        try await inner.isNotificationApplied(id: id)
    }
    func checkHealth() async throws(StoreError) { try await inner.checkHealth() }
}
