package import AuthFlowStores
import Foundation

/// Provider tokens, sealed at rest (``TokenSealing``), and the single-flight refresh lease kept on the same
/// row (`refresh_lease_holder`, `refresh_lease_until`).
extension SQLAccountStore {
    package func saveTokens(_ tokens: StoredTokens, for identity: IdentityKey) async throws(StoreError) {
        let operation = "saveTokens"
        try StoreValidation.checkIdentity(identity, operation: operation)
        guard let sealed = try sealedTokens(tokens, for: identity, operation: operation) else { return }
        let now = clock.now()
        let lockIdentity = "SELECT 1 FROM identities WHERE provider = $1 AND subject = $2" + database.forShare
        try await database.withTransaction(operation, writes: true) { connection throws(StoreError) in
            // The identity stays until the tokens are in (a concurrent unlink waits, then removes both).
            guard
                !(try connection.query(
                    lockIdentity, .text(identity.provider), .text(identity.subject), operation: operation
                ).isEmpty)
            else { throw Self.identityNotFound(operation) }
            try Self.write(sealed, for: identity, at: now, in: connection, operation: operation)
        }
    }

    /// Checks `tokens` and seals them for `identity`; `nil` for no tokens.
    func sealedTokens(_ tokens: StoredTokens?, for identity: IdentityKey, operation: String) throws(StoreError)
        -> TokenSealing.Columns?
    {
        guard let tokens else { return nil }
        try StoreValidation.checkTokens(tokens, operation: operation)
        return try sealing.columns(tokens, for: identity, operation: operation)
    }

    /// Writes sealed tokens for an identity the transaction holds (inserted or locked by it), replacing the
    /// stored access token, expiry and scope; a `nil` refresh token keeps the stored one.
    static func write(
        _ sealed: TokenSealing.Columns, for identity: IdentityKey, at now: Date, in connection: any SQLConnection,
        operation: String
    ) throws(StoreError) {
        try connection.run(
            """
            INSERT INTO identity_tokens
                (provider, subject, access_token, refresh_token, access_token_expires_at, scope, updated_at,
                refresh_token_hash, refresh_token_prefix_digest, client_id)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
            ON CONFLICT (provider, subject) DO UPDATE SET
                access_token = excluded.access_token,
                refresh_token = coalesce(excluded.refresh_token, identity_tokens.refresh_token),
                access_token_expires_at = excluded.access_token_expires_at,
                scope = excluded.scope,
                updated_at = excluded.updated_at,
                refresh_token_hash = CASE WHEN excluded.refresh_token IS NULL
                    THEN identity_tokens.refresh_token_hash ELSE excluded.refresh_token_hash END,
                refresh_token_prefix_digest = CASE WHEN excluded.refresh_token IS NULL
                    THEN identity_tokens.refresh_token_prefix_digest ELSE excluded.refresh_token_prefix_digest END,
                client_id = CASE WHEN excluded.refresh_token IS NULL
                    THEN identity_tokens.client_id ELSE excluded.client_id END
            """,
            .text(identity.provider), .text(identity.subject), .optional(sealed.access), .optional(sealed.refresh),
            .optional(sealed.expiresAt), .optional(sealed.scope), .real(now.timeIntervalSince1970),
            .optional(sealed.refreshHash), .optional(sealed.refreshPrefixDigest), .optional(sealed.clientID),
            operation: operation)
    }

    package func tokens(for identity: IdentityKey) async throws(StoreError) -> StoredTokens? {
        let operation = "tokens"
        try StoreValidation.checkIdentity(identity, operation: operation)
        let sealing = sealing
        return try await database.withConnection(operation) { connection throws(StoreError) in
            try Self.storedTokens(identity, sealing: sealing, in: connection, operation: operation)
        }
    }

    package func tokens(ofUser user: UserID) async throws(StoreError) -> [IdentityKey: StoredTokens] {
        let operation = "tokens(ofUser:)"
        let sealing = sealing
        return try await database.withTransaction(operation, writes: false) { connection throws(StoreError) in
            guard
                !(try connection.query("SELECT 1 FROM users WHERE id = $1", .text(user.rawValue), operation: operation)
                    .isEmpty)
            else { throw Self.userNotFound(operation) }
            let rows = try connection.query(
                """
                SELECT t.access_token, t.refresh_token, t.access_token_expires_at, t.scope, t.client_id, t.provider,
                    t.subject
                FROM identity_tokens t JOIN identities i ON i.provider = t.provider AND i.subject = t.subject
                WHERE i.user_id = $1
                """, .text(user.rawValue), operation: operation)
            var result: [IdentityKey: StoredTokens] = [:]
            for row in rows {
                let key = IdentityKey(provider: try row.text(5), subject: try row.text(6))
                result[key] = try sealing.tokens(from: row, key, operation: operation)
            }
            return result
        }
    }

    package func deleteTokens(for identity: IdentityKey) async throws(StoreError) -> StoredTokens? {
        let operation = "deleteTokens"
        try StoreValidation.checkIdentity(identity, operation: operation)
        let sealing = sealing
        return try await database.withConnection(operation) { connection throws(StoreError) in
            try Self.removeTokens(identity, sealing: sealing, in: connection, operation: operation)
        }
    }

    /// Looks the token up by the index written with it (`refresh_token_hash`, or `refresh_token_prefix_digest`
    /// for a prefix: its keyed digest, so the prefix is never stored); digests are compared by the database's
    /// index, no token is decrypted. Rows saved before the index existed are found after their next save or
    /// refresh that carries a refresh token.
    package func identity(provider: String, refreshToken identifier: RefreshTokenIdentifier) async throws(StoreError)
        -> IdentityKey?
    {
        let operation = "identity(provider:refreshToken:)"
        try StoreValidation.checkProvider(provider, operation: operation)
        let column: String
        let values: [StoreValue]
        switch identifier {
        case .sha512SHA512(let digest):
            (column, values) = ("refresh_token_hash", [.text(digest)])
        case .prefix(let prefix):
            // One digest per secret of the keyring: a row indexed before a rotation is still found.
            (column, values) = ("refresh_token_prefix_digest", sealing.prefixDigests(prefix).map { .bytes($0) })
        }
        for value in values {
            let found = try await database.withConnection(operation) { connection throws(StoreError) in
                try connection.query(
                    "SELECT provider, subject FROM identity_tokens WHERE provider = $1 AND \(column) = $2 LIMIT 2",
                    .text(provider), value, operation: operation
                ).map { row throws(StoreError) in IdentityKey(provider: try row.text(0), subject: try row.text(1)) }
            }
            if !found.isEmpty { return found.count == 1 ? found[0] : nil }
        }
        return nil
    }

    /// Takes the lease with one conditional `UPDATE … WHERE refresh_lease_until IS NULL OR refresh_lease_until
    /// <= now … RETURNING`: PostgreSQL's row lock queues concurrent callers and the first one's write makes the
    /// condition false for the others; SQLite's write lock does the same.
    package func beginTokenRefresh(for identity: IdentityKey, holder: String, leaseDuration: Double)
        async throws(StoreError)
        -> RefreshLease?
    {
        let operation = "beginTokenRefresh"
        try StoreValidation.checkLease(identity, holder: holder, duration: leaseDuration, operation: operation)
        let now = clock.now().timeIntervalSince1970
        let sealing = sealing
        return try await database.withTransaction(operation, writes: true) { connection throws(StoreError) in
            let taken = try connection.query(
                """
                UPDATE identity_tokens SET refresh_lease_holder = $1, refresh_lease_until = $2
                WHERE provider = $3 AND subject = $4 AND (refresh_lease_until IS NULL OR refresh_lease_until <= $5)
                RETURNING \(TokenSealing.columns)
                """,
                .text(holder), .real(now + leaseDuration), .text(identity.provider), .text(identity.subject),
                .real(now), operation: operation)
            if let row = taken.first { return .acquired(try sealing.tokens(from: row, identity, operation: operation)) }
            return try Self.storedTokens(identity, sealing: sealing, in: connection, operation: operation)
                .map(RefreshLease.held)
        }
    }

    /// Writes the refreshed tokens and ends `holder`'s lease in one `UPDATE` conditioned on the holder; when it
    /// changes no row, tells a lost lease from deleted tokens.
    package func completeTokenRefresh(_ tokens: StoredTokens, for identity: IdentityKey, holder: String)
        async throws(StoreError)
    {
        let operation = "completeTokenRefresh"
        try StoreValidation.checkLease(identity, holder: holder, operation: operation)
        try StoreValidation.checkTokens(tokens, operation: operation)
        let sealed = try sealing.columns(tokens, for: identity, operation: operation)
        let now = clock.now().timeIntervalSince1970
        let outcome = try await database.withTransaction(operation, writes: true) {
            connection throws(StoreError) -> Int in
            let changed = try connection.run(
                """
                UPDATE identity_tokens SET access_token = $1, refresh_token = coalesce($2, refresh_token),
                    access_token_expires_at = $3, scope = $4, updated_at = $5,
                    refresh_lease_until = NULL, refresh_lease_holder = NULL,
                    refresh_token_hash = CASE WHEN $2 IS NULL THEN refresh_token_hash ELSE $6 END,
                    refresh_token_prefix_digest = CASE WHEN $2 IS NULL THEN refresh_token_prefix_digest ELSE $7 END
                WHERE provider = $8 AND subject = $9 AND refresh_lease_holder = $10
                """,
                .optional(sealed.access), .optional(sealed.refresh), .optional(sealed.expiresAt),
                .optional(sealed.scope), .real(now), .optional(sealed.refreshHash),
                .optional(sealed.refreshPrefixDigest), .text(identity.provider), .text(identity.subject),
                .text(holder), operation: operation)
            guard changed == 0 else { return changed }
            let stored = try connection.query(
                "SELECT 1 FROM identity_tokens WHERE provider = $1 AND subject = $2", .text(identity.provider),
                .text(identity.subject), operation: operation)
            return stored.isEmpty ? 0 : -1
        }
        guard outcome != 0 else { throw Self.identityNotFound(operation) }
        guard outcome > 0 else { throw StoreError.leaseLost(operation) }
    }

    package func releaseTokenRefresh(for identity: IdentityKey, holder: String) async throws(StoreError) {
        let operation = "releaseTokenRefresh"
        try StoreValidation.checkLease(identity, holder: holder, operation: operation)
        _ = try await database.withConnection(operation) { connection throws(StoreError) in
            try connection.run(
                """
                UPDATE identity_tokens SET refresh_lease_holder = NULL, refresh_lease_until = NULL
                WHERE provider = $1 AND subject = $2 AND refresh_lease_holder = $3
                """, .text(identity.provider), .text(identity.subject), .text(holder), operation: operation)
        }
    }

    static func storedTokens(
        _ identity: IdentityKey, sealing: TokenSealing, in connection: any SQLConnection, operation: String
    ) throws(StoreError) -> StoredTokens? {
        let rows = try connection.query(
            "SELECT \(TokenSealing.columns) FROM identity_tokens WHERE provider = $1 AND subject = $2",
            .text(identity.provider), .text(identity.subject), operation: operation)
        return try rows.first.map { row throws(StoreError) in
            try sealing.tokens(from: row, identity, operation: operation)
        }
    }

    /// Deletes the identity's token row and returns its tokens, or `nil` when none were stored or they do
    /// not decrypt (they cannot be revoked then, and removing the identity must not depend on them).
    static func removeTokens(
        _ identity: IdentityKey, sealing: TokenSealing, in connection: any SQLConnection, operation: String
    ) throws(StoreError) -> StoredTokens? {
        let rows = try connection.query(
            "DELETE FROM identity_tokens WHERE provider = $1 AND subject = $2 RETURNING \(TokenSealing.columns)",
            .text(identity.provider), .text(identity.subject), operation: operation)
        return sealing.removedTokens(from: rows.first, identity, operation: operation)
    }
}
