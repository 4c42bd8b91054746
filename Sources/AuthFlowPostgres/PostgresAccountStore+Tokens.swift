public import AuthFlow
import AuthFlowJOSE
import Foundation

/// Provider tokens, encrypted at rest exactly as the SQLite store does.
///
/// Access and refresh tokens are sealed separately, each with associated data
/// `"<kind>|<provider byte count>:<provider>|<subject>"` (kind `access_token` or `refresh_token`), so a value
/// decrypts only in the column and row it was written to. Expiry and scope are stored in clear.
extension PostgresAccountStore {
    /// Stores tokens for a linked identity in one statement; a `nil` refresh token keeps the stored one.
    ///
    /// - Throws: `StoreError` `identityNotFound`, `invalidValue`.
    public func saveTokens(_ tokens: StoredTokens, for identity: IdentityKey) async throws(StoreError) {
        let operation = "saveTokens"
        try StoreValidation.checkIdentity(identity, operation: operation)
        try StoreValidation.checkTokens(tokens, operation: operation)
        let access = try Self.seal(tokens.accessToken, kind: .access, identity, cipher: cipher, operation: operation)
        let refresh = try Self.seal(tokens.refreshToken, kind: .refresh, identity, cipher: cipher, operation: operation)
        let parameters: [PostgresValue] = [
            .text(identity.provider), .text(identity.subject), .optional(access), .optional(refresh),
            .optional(tokens.accessTokenExpiresAt?.timeIntervalSince1970), .optional(tokens.scope),
            .real(clock.now().timeIntervalSince1970),
        ]
        let changed = try await database.perform(operation) { connection throws(StoreError) in
            try connection.run(
                """
                INSERT INTO identity_tokens
                    (provider, subject, access_token, refresh_token, access_token_expires_at, scope, updated_at)
                SELECT $1, $2, $3::bytea, $4::bytea, $5::double precision, $6, $7::double precision
                WHERE EXISTS (SELECT 1 FROM identities WHERE provider = $1 AND subject = $2)
                ON CONFLICT (provider, subject) DO UPDATE SET
                    access_token = excluded.access_token,
                    refresh_token = coalesce(excluded.refresh_token, identity_tokens.refresh_token),
                    access_token_expires_at = excluded.access_token_expires_at,
                    scope = excluded.scope,
                    updated_at = excluded.updated_at
                """, parameters, operation: operation)
        }
        guard changed > 0 else { throw Self.identityNotFound(operation) }
    }

    /// The identity's tokens, or `nil` when none are stored.
    ///
    /// - Throws: `StoreError` `corruptData` when they do not decrypt (e.g. `server.secret` changed).
    public func tokens(for identity: IdentityKey) async throws(StoreError) -> StoredTokens? {
        let operation = "tokens"
        try StoreValidation.checkIdentity(identity, operation: operation)
        let cipher = cipher
        return try await database.perform(operation) { connection throws(StoreError) in
            let rows = try connection.query(
                """
                SELECT access_token, refresh_token, access_token_expires_at, scope FROM identity_tokens
                WHERE provider = $1 AND subject = $2
                """, [.text(identity.provider), .text(identity.subject)], operation: operation)
            return try rows.first.map { row throws(StoreError) in
                try Self.tokens(from: row, identity, cipher: cipher, operation: operation)
            }
        }
    }

    /// Every identity of the user with stored tokens.
    ///
    /// - Throws: `StoreError` `userNotFound`, `corruptData`.
    public func tokens(ofUser user: UserID) async throws(StoreError) -> [IdentityKey: StoredTokens] {
        let operation = "tokens(ofUser:)"
        let cipher = cipher
        return try await database.perform(operation) { connection throws(StoreError) in
            try connection.transaction(operation: operation) { () throws(StoreError) in
                let users = try connection.query(
                    "SELECT 1 FROM users WHERE id = $1", [.text(user.rawValue)], operation: operation)
                guard !users.isEmpty else { throw Self.userNotFound(operation) }
                let rows = try connection.query(
                    """
                    SELECT t.access_token, t.refresh_token, t.access_token_expires_at, t.scope, t.provider, t.subject
                    FROM identity_tokens t JOIN identities i ON i.provider = t.provider AND i.subject = t.subject
                    WHERE i.user_id = $1
                    """, [.text(user.rawValue)], operation: operation)
                var result: [IdentityKey: StoredTokens] = [:]
                for row in rows {
                    let key = IdentityKey(provider: try row.text(4), subject: try row.text(5))
                    result[key] = try Self.tokens(from: row, key, cipher: cipher, operation: operation)
                }
                return result
            }
        }
    }

    /// Deletes the identity's tokens and returns them; tokens that no longer decrypt are reported as `nil`.
    ///
    /// - Throws: `StoreError`.
    public func deleteTokens(for identity: IdentityKey) async throws(StoreError) -> StoredTokens? {
        let operation = "deleteTokens"
        try StoreValidation.checkIdentity(identity, operation: operation)
        let cipher = cipher
        return try await database.perform(operation) { connection throws(StoreError) in
            try Self.removeTokens(identity, cipher: cipher, in: connection, operation: operation)
        }
    }

    enum TokenKind: String {
        case access = "access_token"
        case refresh = "refresh_token"
    }

    /// Deletes the identity's token row and returns its tokens, or `nil` when none were stored or they do
    /// not decrypt (they cannot be revoked then, and removing the identity must not depend on them).
    static func removeTokens(
        _ identity: IdentityKey, cipher: TokenCipher, in connection: PostgresConnection, operation: String
    ) throws(StoreError) -> StoredTokens? {
        let rows = try connection.query(
            """
            DELETE FROM identity_tokens WHERE provider = $1 AND subject = $2
            RETURNING access_token, refresh_token, access_token_expires_at, scope
            """, [.text(identity.provider), .text(identity.subject)], operation: operation)
        guard let row = rows.first else { return nil }
        return try? tokens(from: row, identity, cipher: cipher, operation: operation)
    }

    /// Decodes columns access, refresh, expiry, scope (0...3) of a token row.
    static func tokens(
        from row: PostgresRow, _ identity: IdentityKey, cipher: TokenCipher, operation: String
    ) throws(StoreError) -> StoredTokens {
        StoredTokens(
            accessToken: try open(row.optionalBytes(0), kind: .access, identity, cipher: cipher, operation: operation),
            refreshToken: try open(
                row.optionalBytes(1), kind: .refresh, identity, cipher: cipher, operation: operation),
            accessTokenExpiresAt: try row.optionalReal(2).map { Date(timeIntervalSince1970: $0) },
            scope: try row.optionalText(3))
    }

    static func seal(
        _ token: String?, kind: TokenKind, _ identity: IdentityKey, cipher: TokenCipher, operation: String
    ) throws(StoreError) -> [UInt8]? {
        guard let token else { return nil }
        do {
            return try cipher.seal(Array(token.utf8), associatedData: associatedData(kind, identity))
        } catch {
            throw StoreError(
                .backendFailure, "expected to encrypt the \(kind.rawValue), found: \(error)", operation: operation)
        }
    }

    static func open(
        _ sealed: [UInt8]?, kind: TokenKind, _ identity: IdentityKey, cipher: TokenCipher, operation: String
    ) throws(StoreError) -> String? {
        guard let sealed else { return nil }
        let plaintext: [UInt8]
        do {
            plaintext = try cipher.open(sealed, associatedData: associatedData(kind, identity))
        } catch {
            throw StoreError(
                .corruptData,
                "expected the stored \(kind.rawValue) to decrypt under the configured secret for its identity, found "
                    + "\(error.code) (was server.secret changed, or the row altered?)",
                operation: operation)
        }
        guard let text = String(validating: plaintext, as: UTF8.self) else {
            throw StoreError(
                .corruptData, "expected the stored \(kind.rawValue) to be UTF-8, found other bytes",
                operation: operation)
        }
        return text
    }

    static func associatedData(_ kind: TokenKind, _ identity: IdentityKey) -> [UInt8] {
        Array("\(kind.rawValue)|\(identity.provider.utf8.count):\(identity.provider)|\(identity.subject)".utf8)
    }
}
