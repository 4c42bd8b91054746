package import AuthFlowJOSE
package import AuthFlowStores
import Foundation

/// The one implementation of `AccountStore` over SQL, shared by the SQLite and PostgreSQL stores: each
/// database contributes only its connections, transactions and dialect (``SQLDatabase``).
///
/// Each operation is one statement or one transaction. Unique constraints decide races between instances:
/// users and identities are inserted with `ON CONFLICT DO NOTHING`, so of two callers completing the first
/// sign-in of one new identity exactly one creates the user, and a notification id is applied once.
/// Read-then-write operations lock the rows they read where the backend locks rows, and run under the
/// database's write lock where it does not. Provider tokens are sealed with `TokenSealing`. Timestamps
/// and expiry follow the injected clock.
package struct SQLAccountStore<Database: SQLDatabase>: AccountStore, StoreBackendNaming {
    package let database: Database
    let sealing: TokenSealing
    let clock: any WallClock
    /// The most live pending profiles kept at once; `nil` for no bound.
    let pendingCapacity: Int?
    /// The digest of a session each account write also deletes in its transaction (``endingSession(digest:keptIn:)``).
    var sessionToEnd: [UInt8]?

    /// The database's name in `GET /healthz` (`sqlite`, `postgres`).
    package var backendName: String { database.backendName }

    /// Creates the store over `database`, sealing tokens with `cipher`; `pendingCapacity` bounds the live
    /// pending profiles kept at once (`nil`: the database's default).
    package init(database: Database, cipher: TokenCipher, clock: any WallClock, pendingCapacity: Int? = nil) {
        self.database = database
        self.sealing = TokenSealing(cipher: cipher)
        self.clock = clock
        self.pendingCapacity = (pendingCapacity ?? database.defaultPendingCapacity).map { max(1, $0) }
    }

    package func identity(_ key: IdentityKey) async throws(StoreError) -> LinkedIdentity? {
        let operation = "identity"
        try StoreValidation.checkIdentity(key, operation: operation)
        return try await database.withConnection(operation) { connection throws(StoreError) in
            try Self.identity(key, in: connection, operation: operation)
        }
    }

    package func user(_ id: UserID) async throws(StoreError) -> UserAccount? {
        let operation = "user"
        return try await database.withTransaction(operation, writes: false) { connection throws(StoreError) in
            try Self.account(id, in: connection, operation: operation)
        }
    }

    package func users(withVerifiedEmail email: String) async throws(StoreError) -> [UserAccount] {
        let operation = "users(withVerifiedEmail:)"
        try StoreValidation.checkField(email, "email", operation: operation)
        let normalized = StoreValidation.normalizedEmail(email)
        return try await database.withTransaction(operation, writes: false) { connection throws(StoreError) in
            let rows = try connection.query(
                """
                SELECT id FROM users WHERE id IN (
                    SELECT user_id FROM identities
                    WHERE email_normalized = $1 AND email_verified AND NOT disabled
                ) ORDER BY created_at, id
                """, .text(normalized), operation: operation)
            var accounts: [UserAccount] = []
            for row in rows {
                let id = UserID(rawValue: try row.text(0))
                if let account = try Self.account(id, in: connection, operation: operation) { accounts.append(account) }
            }
            return accounts
        }
    }

    package func users(after cursor: UserID?, limit: Int) async throws(StoreError) -> [UserAccount] {
        let operation = "users(after:limit:)"
        try StoreValidation.checkLimit(limit, operation: operation)
        return try await database.withTransaction(operation, writes: false) { connection throws(StoreError) in
            let rows: [any StoreRow]
            if let cursor {
                rows = try connection.query(
                    "SELECT id FROM users WHERE id > $1 ORDER BY id LIMIT $2", .text(cursor.rawValue),
                    .integer(Int64(limit)), operation: operation)
            } else {
                rows = try connection.query(
                    "SELECT id FROM users ORDER BY id LIMIT $1", .integer(Int64(limit)), operation: operation)
            }
            var accounts: [UserAccount] = []
            for row in rows {
                let id = UserID(rawValue: try row.text(0))
                if let account = try Self.account(id, in: connection, operation: operation) { accounts.append(account) }
            }
            return accounts
        }
    }

    package func createUser(_ id: UserID, identity: IdentityKey, profile: IdentityProfile, tokens: StoredTokens?)
        async throws(StoreError) -> UserAccount
    {
        let operation = "createUser"
        try StoreValidation.checkKey(id.rawValue, "user id", operation: operation)
        try StoreValidation.checkIdentity(identity, operation: operation)
        try StoreValidation.checkProfile(profile, operation: operation)
        let sealed = try sealedTokens(tokens, for: identity, operation: operation)
        let now = clock.now()
        let sessionToEnd = sessionToEnd
        return try await database.withTransaction(operation, writes: true) { connection throws(StoreError) in
            try Self.endSession(sessionToEnd, in: connection, operation: operation)
            let linked = LinkedIdentity(user: id, key: identity, profile: profile, at: now)
            try Self.insertUser(id, with: linked, at: now, in: connection, operation: operation)
            if let sealed { try Self.write(sealed, for: identity, at: now, in: connection, operation: operation) }
            return UserAccount(id: id, createdAt: now, identities: [linked])
        }
    }

    package func linkIdentity(
        _ identity: IdentityKey, profile: IdentityProfile, to user: UserID, tokens: StoredTokens?
    ) async throws(StoreError) -> LinkedIdentity {
        let operation = "linkIdentity"
        try StoreValidation.checkIdentity(identity, operation: operation)
        try StoreValidation.checkProfile(profile, operation: operation)
        let sealed = try sealedTokens(tokens, for: identity, operation: operation)
        let now = clock.now()
        let (lockUser, sessionToEnd) = ("SELECT 1 FROM users WHERE id = $1" + database.forShare, sessionToEnd)
        return try await database.withTransaction(operation, writes: true) { connection throws(StoreError) in
            try Self.endSession(sessionToEnd, in: connection, operation: operation)
            // Locks the user against a concurrent deleteUser until the identity is in.
            let users = try connection.query(lockUser, .text(user.rawValue), operation: operation)
            let linked = LinkedIdentity(user: user, key: identity, profile: profile, at: now)
            var result: LinkedIdentity
            if !users.isEmpty, try Self.insert(linked, in: connection, operation: operation) {
                result = linked
            } else if let existing = try Self.identity(identity, in: connection, operation: operation) {
                guard existing.userID == user else {
                    throw StoreError(
                        .identityAlreadyLinked, "expected an identity not linked to another user, found one that is",
                        operation: operation)
                }
                result = existing
            } else {
                throw Self.userNotFound(operation)
            }
            if let sealed { try Self.write(sealed, for: identity, at: now, in: connection, operation: operation) }
            return result
        }
    }

    package func unlinkProvider(_ provider: String, from user: UserID) async throws(StoreError) -> [RemovedIdentity] {
        let operation = "unlinkProvider"
        try StoreValidation.checkKey(provider, "provider", operation: operation)
        let (sealing, lockUser) = (sealing, "SELECT 1 FROM users WHERE id = $1" + database.forUpdate)
        return try await database.withTransaction(operation, writes: true) { connection throws(StoreError) in
            guard !(try connection.query(lockUser, .text(user.rawValue), operation: operation).isEmpty),
                let account = try Self.account(user, in: connection, operation: operation)
            else { throw Self.userNotFound(operation) }
            let removing = try account.identitiesToUnlink(provider, operation: operation)
            var removed: [RemovedIdentity] = []
            for identity in removing {
                let tokens = try Self.removeTokens(identity.key, sealing: sealing, in: connection, operation: operation)
                try connection.run(
                    "DELETE FROM identities WHERE provider = $1 AND subject = $2", .text(identity.provider),
                    .text(identity.subject), operation: operation)
                removed.append(RemovedIdentity(identity: identity, tokens: tokens))
            }
            return removed
        }
    }

    package func deleteUser(_ id: UserID) async throws(StoreError) -> [RemovedIdentity] {
        let operation = "deleteUser"
        let (sealing, lockUser) = (sealing, "SELECT 1 FROM users WHERE id = $1" + database.forUpdate)
        return try await database.withTransaction(operation, writes: true) { connection throws(StoreError) in
            guard !(try connection.query(lockUser, .text(id.rawValue), operation: operation).isEmpty),
                let account = try Self.account(id, in: connection, operation: operation)
            else { throw Self.userNotFound(operation) }
            var removed: [RemovedIdentity] = []
            for identity in account.identities {
                let tokens = try Self.removeTokens(identity.key, sealing: sealing, in: connection, operation: operation)
                removed.append(RemovedIdentity(identity: identity, tokens: tokens))
            }
            try connection.run("DELETE FROM identities WHERE user_id = $1", .text(id.rawValue), operation: operation)
            try connection.run("DELETE FROM users WHERE id = $1", .text(id.rawValue), operation: operation)
            return removed
        }
    }

    package func updateIdentityProfile(
        _ update: IdentityProfileUpdate, for identity: IdentityKey, tokens: StoredTokens?
    ) async throws(StoreError) -> LinkedIdentity {
        let operation = "updateIdentityProfile"
        try StoreValidation.checkIdentity(identity, operation: operation)
        try StoreValidation.checkUpdate(update, operation: operation)
        let sealed = try sealedTokens(tokens, for: identity, operation: operation)
        let now = clock.now()
        return try await modifyIdentity(identity, operation: operation, tokens: sealed) { $0.applying(update, at: now) }
    }

    /// Reads the users table, so a database that answers but lost the schema is noticed.
    package func checkHealth() async throws(StoreError) {
        _ = try await database.withConnection("checkHealth") { connection throws(StoreError) in
            try connection.query("SELECT id FROM users LIMIT 1", [], operation: "checkHealth").count
        }
    }

    /// Changes the stored identity in one transaction and, when `tokens` are given, writes them in the same one.
    private func modifyIdentity(
        _ identity: IdentityKey, operation: String, tokens: TokenSealing.Columns? = nil,
        _ change: @escaping @Sendable (LinkedIdentity) -> LinkedIdentity
    ) async throws(StoreError) -> LinkedIdentity {
        let (forUpdate, sessionToEnd) = (database.forUpdate, sessionToEnd)
        let now = clock.now()
        return try await database.withTransaction(operation, writes: true) { connection throws(StoreError) in
            guard let stored = try Self.identity(identity, lock: forUpdate, in: connection, operation: operation)
            else { throw Self.identityNotFound(operation) }
            try Self.endSession(sessionToEnd, in: connection, operation: operation)
            let updated = change(stored)
            if updated != stored { try Self.update(updated, in: connection, operation: operation) }
            if let tokens { try Self.write(tokens, for: identity, at: now, in: connection, operation: operation) }
            return updated
        }
    }

    /// Inserts the user `id` created at `now` with its first identity `linked`.
    ///
    /// - Throws: `duplicateUser` when the id is stored, `identityAlreadyLinked` when the identity is.
    static func insertUser(
        _ id: UserID, with linked: LinkedIdentity, at now: Date, in connection: any SQLConnection, operation: String
    ) throws(StoreError) {
        let created = try connection.run(
            "INSERT INTO users (id, created_at) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING",
            .text(id.rawValue), .real(now.timeIntervalSince1970), operation: operation)
        guard created > 0 else {
            throw StoreError(.duplicateUser, "expected a new user id, found one that exists", operation: operation)
        }
        guard try insert(linked, in: connection, operation: operation) else {
            throw StoreError(
                .identityAlreadyLinked, "expected an identity not linked to any user, found one linked to a user",
                operation: operation)
        }
    }

    static func userNotFound(_ operation: String) -> StoreError {
        StoreError(.userNotFound, "expected an existing user, found none with that id", operation: operation)
    }

    static func identityNotFound(_ operation: String) -> StoreError {
        StoreError(
            .identityNotFound, "expected a linked identity, found none for that provider and subject",
            operation: operation)
    }
}
