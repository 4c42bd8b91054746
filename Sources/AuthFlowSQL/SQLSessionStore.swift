package import AuthFlowJOSE
package import AuthFlowStores
package import Foundation

/// The one implementation of `SessionStore` over SQL, shared by the SQLite and PostgreSQL stores, which
/// contribute only a ``SQLDatabase``.
///
/// Sessions are keyed by the SHA-256 digest of their id; the id itself is never written. Each operation is
/// one statement (creation also purges expired sessions in the same transaction). Expiry follows the
/// injected clock.
package struct SQLSessionStore<Database: SQLDatabase>: SessionStore, StoreBackendNaming {
    package let database: Database
    let clock: any WallClock

    /// The database's name in `GET /healthz` (`sqlite`, `postgres`).
    package var backendName: String { database.backendName }

    /// Creates the store over `database`.
    package init(database: Database, clock: any WallClock) {
        self.database = database
        self.clock = clock
    }

    /// The digest a session is stored under.
    package static func digest(_ id: String) -> [UInt8] { Digest.sha256(Array(id.utf8)) }

    package func createSession(id: String, record: SessionRecord) async throws(StoreError) {
        let operation = "createSession"
        try StoreValidation.checkSession(id: id, record, operation: operation)
        let now = clock.now().timeIntervalSince1970
        let inserted = try await database.withUnsyncedWriteTransaction(operation) { connection throws(StoreError) in
            try connection.run("DELETE FROM sessions WHERE expires_at <= $1", .real(now), operation: operation)
            return try connection.run(
                """
                INSERT INTO sessions
                    (id_digest, user_id, provider, subject, created_at, expires_at, provider_session_id, kind,
                     group_names, last_used_at, agent)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (id_digest) DO NOTHING
                """,
                .bytes(Self.digest(id)), .text(record.userID.rawValue), .text(record.provider), .text(record.subject),
                .real(record.createdAt.timeIntervalSince1970), .real(record.expiresAt.timeIntervalSince1970),
                .optional(record.providerSessionID), .text(record.kind.rawValue),
                .optional(SessionRecord.encodeMemberships(of: record)),
                .real(record.lastUsedAt.timeIntervalSince1970),
                .optional(record.agent), operation: operation)
        }
        guard inserted > 0 else {
            throw StoreError(
                .duplicateSession, "expected a new session id, found one that is stored", operation: operation)
        }
    }

    /// The columns ``record(_:operation:)`` reads, after the id digest.
    static var recordColumns: String {
        "user_id, provider, subject, created_at, expires_at, provider_session_id, kind, group_names, last_used_at, agent"
    }

    /// The record of a row selecting `id_digest, ` + ``recordColumns``.
    static func record(_ row: any StoreRow, operation: String) throws(StoreError) -> SessionRecord {
        guard let kind = SessionKind(rawValue: try row.text(7)) else {
            throw StoreError(
                .corruptData, "expected a session kind (cookie, bearer or rotated), found another value",
                operation: operation)
        }
        let stored = try row.optionalText(8)
        let memberships = try SessionRecord.decodeMemberships(stored, operation: operation)
        let authentication = try SessionRecord.decodeAuthentication(stored, operation: operation)
        return SessionRecord(
            userID: UserID(rawValue: try row.text(1)), provider: try row.text(2), subject: try row.text(3),
            createdAt: try row.date(4), expiresAt: try row.date(5), providerSessionID: try row.optionalText(6),
            kind: kind, groups: memberships.groups, lastUsedAt: try row.optionalDate(9),
            agent: try row.optionalText(10), roles: memberships.roles, tenant: memberships.tenant
        ).authenticated(at: authentication.authTime, acr: authentication.acr)
    }

    package func session(id: String) async throws(StoreError) -> SessionRecord? {
        let operation = "session"
        try StoreValidation.checkKey(id, "session id", operation: operation)
        let now = clock.now().timeIntervalSince1970
        return try await database.withConnection(operation) { connection throws(StoreError) in
            let rows = try connection.query(
                "SELECT id_digest, \(Self.recordColumns) FROM sessions WHERE id_digest = $1 AND expires_at > $2",
                .bytes(Self.digest(id)), .real(now), operation: operation)
            return try rows.first.map { row throws(StoreError) in try Self.record(row, operation: operation) }
        }
    }

    package func sessions(userID: UserID) async throws(StoreError) -> [StoredSession] {
        let operation = "sessions(userID:)"
        let now = clock.now().timeIntervalSince1970
        return try await database.withConnection(operation) { connection throws(StoreError) in
            let rows = try connection.query(
                """
                SELECT id_digest, \(Self.recordColumns) FROM sessions WHERE user_id = $1 AND expires_at > $2
                ORDER BY created_at, id_digest
                """, .text(userID.rawValue), .real(now), operation: operation)
            var listed: [StoredSession] = []
            for row in rows {
                guard let digest = try row.optionalBytes(0) else {
                    throw StoreError(.corruptData, "expected a session digest, found NULL", operation: operation)
                }
                listed.append(StoredSession(digest: digest, record: try Self.record(row, operation: operation)))
            }
            return listed
        }
    }

    package func touchSession(id: String, lastUsedAt: Date) async throws(StoreError) {
        let operation = "touchSession"
        try StoreValidation.checkKey(id, "session id", operation: operation)
        try StoreValidation.checkDate(lastUsedAt, "last use time", operation: operation)
        let used = lastUsedAt.timeIntervalSince1970
        let now = clock.now().timeIntervalSince1970
        _ = try await database.withConnection(operation) { connection throws(StoreError) in
            try connection.run(
                """
                UPDATE sessions SET last_used_at = $1
                WHERE id_digest = $2 AND expires_at > $3 AND COALESCE(last_used_at, created_at) < $1
                """, .real(used), .bytes(Self.digest(id)), .real(now), operation: operation)
        }
    }

    package func deleteSession(digest: [UInt8]) async throws(StoreError) -> Bool {
        let operation = "deleteSession(digest:)"
        try StoreValidation.checkDigest(digest, operation: operation)
        return try await database.withConnection(operation) { connection throws(StoreError) in
            try connection.run("DELETE FROM sessions WHERE id_digest = $1", .bytes(digest), operation: operation) > 0
        }
    }

    package func deleteSessions(userID: UserID) async throws(StoreError) -> Int {
        let operation = "deleteSessions(userID:)"
        return try await database.withConnection(operation) { connection throws(StoreError) in
            try connection.run("DELETE FROM sessions WHERE user_id = $1", .text(userID.rawValue), operation: operation)
        }
    }

    private func deleteSessions(signedInWith identity: IdentityKey) async throws(StoreError) -> Int {
        let operation = "deleteSessions(identity:)"
        return try await database.withConnection(operation) { connection throws(StoreError) in
            try connection.run(
                "DELETE FROM sessions WHERE provider = $1 AND subject = $2", .text(identity.provider),
                .text(identity.subject), operation: operation)
        }
    }

    package func deleteSessions(identity: IdentityKey, providerSessionID: String?) async throws(StoreError) -> Int {
        guard let providerSessionID else { return try await deleteSessions(signedInWith: identity) }
        let operation = "deleteSessions(identity:providerSessionID:)"
        try StoreValidation.checkKey(identity.provider, "provider", operation: operation)
        try StoreValidation.checkKey(providerSessionID, "provider session id", operation: operation)
        return try await database.withConnection(operation) { connection throws(StoreError) in
            try connection.run(
                "DELETE FROM sessions WHERE provider = $1 AND provider_session_id = $2 AND ($3 = '' OR subject = $3)",
                .text(identity.provider), .text(providerSessionID), .text(identity.subject), operation: operation)
        }
    }

    /// Checks that the database answers and that the sessions table is there.
    package func checkHealth() async throws(StoreError) {
        _ = try await database.withConnection("checkHealth") { connection throws(StoreError) in
            try connection.query("SELECT id_digest FROM sessions LIMIT 1", [], operation: "checkHealth").count
        }
    }
}
