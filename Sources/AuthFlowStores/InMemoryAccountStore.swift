package import AuthFlowJOSE
import Foundation

/// An ``AccountStore`` in process memory, for tests and single-instance trials; everything is lost when the
/// process ends (tokens are held in memory, not encrypted).
///
/// An actor: each operation runs alone, so each is atomic like a transaction. Timestamps and expiry follow the
/// injected clock.
package actor InMemoryAccountStore: AccountStore, StoreBackendNaming {
    /// `"memory"`.
    package nonisolated var backendName: String { "memory" }
    struct State {
        var users: [UserID: Date] = [:]
        var identities: [IdentityKey: LinkedIdentity] = [:] {
            // A passkey lives on its identity: it goes when the identity goes.
            didSet {
                if !passkeys.isEmpty { passkeys = passkeys.filter { identities[$0.value.identity] != nil } }
            }
        }
        var passkeys: [[UInt8]: PasskeyCredential] = [:]
        var tokens: [IdentityKey: StoredTokens] = [:] {
            // A lease lives on the token row: it goes when the tokens go.
            didSet { leases = leases.filter { tokens[$0.key] != nil } }
        }
        var leases: [IdentityKey: (holder: String, until: Date)] = [:]
        var notifications: Set<String> = []
    }

    let clock: any WallClock
    private let pendingCapacity: Int
    var state = State()
    private var pending: [String: PendingProfile] = [:]

    /// Creates an empty store.
    ///
    /// - Parameters:
    ///   - clock: the time source for timestamps and expiry.
    ///   - pendingCapacity: the most live pending profiles kept at once (at least 1).
    package init(clock: any WallClock, pendingCapacity: Int = 100_000) {
        self.clock = clock
        self.pendingCapacity = max(1, pendingCapacity)
    }

    /// The stored identity, or `nil`.
    package func identity(_ key: IdentityKey) throws(StoreError) -> LinkedIdentity? {
        try StoreValidation.checkIdentity(key, operation: "identity")
        return state.identities[key]
    }

    /// The user with its identities, or `nil`.
    package func user(_ id: UserID) -> UserAccount? { Self.account(id, in: state) }

    /// Users with an enabled identity whose verified email matches, oldest first.
    package func users(withVerifiedEmail email: String) throws(StoreError) -> [UserAccount] {
        try StoreValidation.checkField(email, "email", operation: "users(withVerifiedEmail:)")
        let wanted = StoreValidation.normalizedEmail(email)
        let ids = Set(
            state.identities.values.filter { identity in
                identity.emailVerified && !identity.isDisabled
                    && identity.email.map(StoreValidation.normalizedEmail) == wanted
            }.map(\.userID))
        return ids.compactMap { Self.account($0, in: state) }.sorted { lhs, rhs in
            lhs.createdAt != rhs.createdAt
                ? lhs.createdAt < rhs.createdAt : Self.bytesBefore(lhs.id.rawValue, rhs.id.rawValue)
        }
    }

    /// Up to `limit` users whose id sorts after `cursor`, in byte order of ids.
    package func users(after cursor: UserID?, limit: Int) throws(StoreError) -> [UserAccount] {
        try StoreValidation.checkLimit(limit, operation: "users(after:limit:)")
        let ids = state.users.keys.filter { id in cursor.map { Self.bytesBefore($0.rawValue, id.rawValue) } ?? true }
            .sorted { Self.bytesBefore($0.rawValue, $1.rawValue) }.prefix(limit)
        return ids.compactMap { Self.account($0, in: state) }
    }

    /// Creates the user with its first identity.
    func insertUser(_ id: UserID, identity: IdentityKey, profile: IdentityProfile) throws(StoreError)
        -> UserAccount
    {
        let operation = "createUser"
        try StoreValidation.checkKey(id.rawValue, "user id", operation: operation)
        try StoreValidation.checkIdentity(identity, operation: operation)
        try StoreValidation.checkProfile(profile, operation: operation)
        guard state.users[id] == nil else {
            throw StoreError(.duplicateUser, "expected a new user id, found one that exists", operation: operation)
        }
        guard state.identities[identity] == nil else {
            throw StoreError(
                .identityAlreadyLinked, "expected an identity not linked to any user, found one linked to a user",
                operation: operation)
        }
        let now = clock.now()
        state.users[id] = now
        state.identities[identity] = LinkedIdentity(user: id, key: identity, profile: profile, at: now)
        return UserAccount(id: id, createdAt: now, identities: [state.identities[identity]].compactMap { $0 })
    }

    /// Links the identity to an existing user.
    func insertIdentity(_ identity: IdentityKey, profile: IdentityProfile, to user: UserID)
        throws(StoreError) -> LinkedIdentity
    {
        let operation = "linkIdentity"
        try StoreValidation.checkIdentity(identity, operation: operation)
        try StoreValidation.checkProfile(profile, operation: operation)
        if let existing = state.identities[identity] {
            guard existing.userID == user else {
                throw StoreError(
                    .identityAlreadyLinked, "expected an identity not linked to another user, found one that is",
                    operation: operation)
            }
            return existing
        }
        guard state.users[user] != nil else {
            throw StoreError(.userNotFound, "expected an existing user, found none with that id", operation: operation)
        }
        let linked = LinkedIdentity(user: user, key: identity, profile: profile, at: clock.now())
        state.identities[identity] = linked
        return linked
    }

    /// Creates the user with its first identity and stores its tokens, at once: tokens are checked first,
    /// so nothing is stored when they are refused.
    package func createUser(_ id: UserID, identity: IdentityKey, profile: IdentityProfile, tokens: StoredTokens?)
        throws(StoreError) -> UserAccount
    {
        if let tokens { try StoreValidation.checkTokens(tokens, operation: "createUser") }
        let account = try insertUser(id, identity: identity, profile: profile)
        if let tokens { try saveTokens(tokens, for: identity) }
        return account
    }

    /// Links the identity to an existing user and stores its tokens, at once.
    package func linkIdentity(_ identity: IdentityKey, profile: IdentityProfile, to user: UserID, tokens: StoredTokens?)
        throws(StoreError) -> LinkedIdentity
    {
        if let tokens { try StoreValidation.checkTokens(tokens, operation: "linkIdentity") }
        let linked = try insertIdentity(identity, profile: profile, to: user)
        if let tokens { try saveTokens(tokens, for: identity) }
        return linked
    }

    /// Updates the identity's profile fields and disabled flag and stores its tokens, at once; `nil` keeps a
    /// stored value.
    package func updateIdentityProfile(
        _ update: IdentityProfileUpdate, for identity: IdentityKey, tokens: StoredTokens?
    ) throws(StoreError) -> LinkedIdentity {
        let operation = "updateIdentityProfile"
        if let tokens { try StoreValidation.checkTokens(tokens, operation: operation) }
        try StoreValidation.checkIdentity(identity, operation: operation)
        try StoreValidation.checkUpdate(update, operation: operation)
        guard let stored = state.identities[identity] else { throw Self.identityNotFound(operation) }
        let updated = stored.applying(update, at: clock.now())
        state.identities[identity] = updated
        if let tokens { try saveTokens(tokens, for: identity) }
        return updated
    }

    package func unlinkProvider(_ provider: String, from user: UserID) throws(StoreError) -> [RemovedIdentity] {
        let operation = "unlinkProvider"
        try StoreValidation.checkKey(provider, "provider", operation: operation)
        guard let account = Self.account(user, in: state) else {
            throw StoreError(.userNotFound, "expected an existing user, found none with that id", operation: operation)
        }
        let removing = try account.identitiesToUnlink(provider, operation: operation)
        return removing.map { identity in
            state.identities[identity.key] = nil
            return RemovedIdentity(identity: identity, tokens: state.tokens.removeValue(forKey: identity.key))
        }
    }

    /// Deletes the user, its identities and their tokens.
    package func deleteUser(_ id: UserID) throws(StoreError) -> [RemovedIdentity] {
        guard let account = Self.account(id, in: state) else {
            throw StoreError(
                .userNotFound, "expected an existing user, found none with that id", operation: "deleteUser")
        }
        state.users[id] = nil
        return account.identities.map { identity in
            state.identities[identity.key] = nil
            return RemovedIdentity(identity: identity, tokens: state.tokens.removeValue(forKey: identity.key))
        }
    }

    /// Stores tokens for the identity; a `nil` refresh token keeps the stored one.
    package func saveTokens(_ tokens: StoredTokens, for identity: IdentityKey) throws(StoreError) {
        let operation = "saveTokens"
        try StoreValidation.checkIdentity(identity, operation: operation)
        try StoreValidation.checkTokens(tokens, operation: operation)
        guard state.identities[identity] != nil else { throw Self.identityNotFound(operation) }
        state.tokens[identity] = tokens.replacing(state.tokens[identity])
    }

    /// The identity's tokens, or `nil`.
    package func tokens(for identity: IdentityKey) throws(StoreError) -> StoredTokens? {
        try StoreValidation.checkIdentity(identity, operation: "tokens")
        return state.tokens[identity]
    }

    /// Every identity of the user with stored tokens.
    package func tokens(ofUser user: UserID) throws(StoreError) -> [IdentityKey: StoredTokens] {
        guard let account = Self.account(user, in: state) else {
            throw StoreError(.userNotFound, "expected an existing user, found none with that id", operation: "tokens")
        }
        var result: [IdentityKey: StoredTokens] = [:]
        for identity in account.identities { result[identity.key] = state.tokens[identity.key] }
        return result
    }

    /// Deletes the identity's tokens and returns them.
    package func deleteTokens(for identity: IdentityKey) throws(StoreError) -> StoredTokens? {
        try StoreValidation.checkIdentity(identity, operation: "deleteTokens")
        return state.tokens.removeValue(forKey: identity)
    }

    /// The identity of `provider` whose stored refresh token `identifier` names; every stored token of the
    /// provider is compared in constant time. `nil` when none or (for a prefix) several match.
    package func identity(provider: String, refreshToken identifier: RefreshTokenIdentifier) throws(StoreError)
        -> IdentityKey?
    {
        try StoreValidation.checkProvider(provider, operation: "identity(provider:refreshToken:)")
        var found: [IdentityKey] = []
        for (key, tokens) in state.tokens where key.provider == provider {
            if let refresh = tokens.refreshToken, identifier.matches(refresh) { found.append(key) }
        }
        return found.count == 1 ? found[0] : nil
    }

    /// Takes the identity's refresh lease unless an unexpired one is held.
    package func beginTokenRefresh(for identity: IdentityKey, holder: String, leaseDuration: Double)
        throws(StoreError) -> RefreshLease?
    {
        try StoreValidation.checkLease(
            identity, holder: holder, duration: leaseDuration, operation: "beginTokenRefresh")
        guard let tokens = state.tokens[identity] else { return nil }
        let now = clock.now()
        if let lease = state.leases[identity], lease.until > now { return .held(tokens) }
        state.leases[identity] = (holder, now.addingTimeInterval(leaseDuration))
        return .acquired(tokens)
    }

    /// Writes the refreshed tokens and ends `holder`'s lease, while `holder` holds it.
    package func completeTokenRefresh(_ tokens: StoredTokens, for identity: IdentityKey, holder: String)
        throws(StoreError)
    {
        let operation = "completeTokenRefresh"
        try StoreValidation.checkLease(identity, holder: holder, operation: operation)
        try StoreValidation.checkTokens(tokens, operation: operation)
        guard let stored = state.tokens[identity] else { throw Self.identityNotFound(operation) }
        guard state.leases[identity]?.holder == holder else { throw StoreError.leaseLost(operation) }
        state.tokens[identity] = tokens.replacing(stored)
        state.leases[identity] = nil
    }

    /// Ends `holder`'s lease, leaving the tokens as they are.
    package func releaseTokenRefresh(for identity: IdentityKey, holder: String) throws(StoreError) {
        try StoreValidation.checkLease(identity, holder: holder, operation: "releaseTokenRefresh")
        if state.leases[identity]?.holder == holder { state.leases[identity] = nil }
    }

    /// Parks a pending profile until it is taken or expires.
    package func putPendingProfile(_ profile: PendingProfile) throws(StoreError) {
        let operation = "putPendingProfile"
        let now = clock.now()
        try StoreValidation.checkPendingProfile(profile, now: now, operation: operation)
        if let existing = pending[profile.key], existing.expiresAt > now {
            throw StoreError(
                .duplicateKey, "expected a new pending profile key, found one that is stored", operation: operation)
        }
        if pending.count >= pendingCapacity { pending = pending.filter { $0.value.expiresAt > now } }
        guard pending.count < pendingCapacity else {
            throw StoreError(
                .capacityExceeded, "expected fewer than \(pendingCapacity) pending profiles, found \(pendingCapacity)",
                operation: operation)
        }
        pending[profile.key] = profile
    }

    /// Removes and returns the live pending profile under `key`.
    package func takePendingProfile(key: String) throws(StoreError) -> PendingProfile? {
        try StoreValidation.checkKey(key, "pending profile key", operation: "takePendingProfile")
        guard let profile = pending.removeValue(forKey: key) else { return nil }
        return profile.expiresAt > clock.now() ? profile : nil
    }

    /// Applies a notification's changes once; `false` when `id` was applied before.
    package func applyNotification(id: String, changes: [AccountChange]) throws(StoreError) -> Bool {
        let operation = "applyNotification"
        try StoreValidation.checkKey(id, "notification id", operation: operation)
        guard !state.notifications.contains(id) else { return false }
        // Applied to a copy, committed only when every change succeeds.
        var next = state
        let now = clock.now()
        for change in changes {
            let key = change.identity
            try StoreValidation.checkIdentity(key, operation: operation)
            guard let stored = next.identities[key] else { throw Self.identityNotFound(operation) }
            switch change {
            case .updateProfile(_, let update):
                try StoreValidation.checkUpdate(update, operation: operation)
                next.identities[key] = stored.applying(update, at: now)
            case .setDisabled(_, let disabled):
                next.identities[key] = stored.settingDisabled(disabled, at: now)
            case .deleteTokens:
                next.tokens[key] = nil
            case .removeIdentity:
                next.identities[key] = nil
                next.tokens[key] = nil
            }
        }
        next.notifications.insert(id)
        state = next
        return true
    }

    /// Whether notification `id` was applied.
    package func isNotificationApplied(id: String) throws(StoreError) -> Bool {
        try StoreValidation.checkKey(id, "notification id", operation: "isNotificationApplied")
        return state.notifications.contains(id)
    }

    /// Always succeeds: memory answers.
    package func checkHealth() {}

    static func account(_ id: UserID, in state: State) -> UserAccount? {
        guard let createdAt = state.users[id] else { return nil }
        let identities = state.identities.values.filter { $0.userID == id }.sorted { lhs, rhs in
            if lhs.createdAt != rhs.createdAt { return lhs.createdAt < rhs.createdAt }
            if lhs.provider != rhs.provider { return bytesBefore(lhs.provider, rhs.provider) }
            return bytesBefore(lhs.subject, rhs.subject)
        }
        return UserAccount(id: id, createdAt: createdAt, identities: identities)
    }

    /// Byte-wise UTF-8 order, as SQL's binary collation sorts.
    private static func bytesBefore(_ lhs: String, _ rhs: String) -> Bool {
        lhs.utf8.lexicographicallyPrecedes(rhs.utf8)
    }

    private static func identityNotFound(_ operation: String) -> StoreError {
        StoreError(
            .identityNotFound, "expected a linked identity, found none for that provider and subject",
            operation: operation)
    }
}
