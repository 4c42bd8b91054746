public import AuthFlow
public import AuthFlowJOSE
import Foundation

/// A `SessionStore` in a ``PostgresDatabase``, shared by every server instance using the database.
///
/// Sessions are keyed by the SHA-256 digest of their id; the id itself is never written. Each operation is
/// one statement (creation also purges expired sessions in the same transaction). Expiry follows the injected
/// clock.
public struct PostgresSessionStore: SessionStore {
    /// The database the store reads and writes.
    public let database: PostgresDatabase
    let clock: any WallClock

    /// Creates a store over `database`.
    ///
    /// - Parameters:
    ///   - database: an open database (shareable with the other PostgreSQL stores).
    ///   - clock: the time source for expiry.
    public init(database: PostgresDatabase, clock: any WallClock) {
        self.database = database
        self.clock = clock
    }

    /// Stores a session under the digest of `id`.
    ///
    /// - Throws: `StoreError` `duplicateSession`, `invalidValue`.
    public func createSession(id: String, record: SessionRecord) async throws(StoreError) {
        let operation = "createSession"
        try StoreValidation.checkSession(id: id, record, operation: operation)
        let now = clock.now().timeIntervalSince1970
        let parameters: [PostgresValue] = [
            .bytes(Self.digest(id)), .text(record.userID.rawValue), .text(record.provider), .text(record.subject),
            .real(record.createdAt.timeIntervalSince1970), .real(record.expiresAt.timeIntervalSince1970),
            .optional(record.providerSessionID),
        ]
        let inserted = try await database.perform(operation) { connection throws(StoreError) in
            try connection.transaction(operation: operation) { () throws(StoreError) in
                try connection.run("DELETE FROM sessions WHERE expires_at <= $1", [.real(now)], operation: operation)
                return try connection.run(
                    """
                    INSERT INTO sessions (id_digest, user_id, provider, subject, created_at, expires_at, provider_session_id)
                    VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (id_digest) DO NOTHING
                    """, parameters, operation: operation)
            }
        }
        guard inserted > 0 else {
            throw StoreError(
                .duplicateSession, "expected a new session id, found one that is stored", operation: operation)
        }
    }

    /// The live session under `id`, or `nil`.
    ///
    /// - Throws: `StoreError`.
    public func session(id: String) async throws(StoreError) -> SessionRecord? {
        let operation = "session"
        try StoreValidation.checkKey(id, "session id", operation: operation)
        let parameters: [PostgresValue] = [.bytes(Self.digest(id)), .real(clock.now().timeIntervalSince1970)]
        return try await database.perform(operation) { connection throws(StoreError) in
            let rows = try connection.query(
                """
                SELECT user_id, provider, subject, created_at, expires_at, provider_session_id FROM sessions
                WHERE id_digest = $1 AND expires_at > $2
                """, parameters, operation: operation)
            return try rows.first.map { row throws(StoreError) in
                SessionRecord(
                    userID: UserID(rawValue: try row.text(0)), provider: try row.text(1), subject: try row.text(2),
                    createdAt: Date(timeIntervalSince1970: try row.real(3)),
                    expiresAt: Date(timeIntervalSince1970: try row.real(4)), providerSessionID: try row.optionalText(5))
            }
        }
    }

    /// Deletes the session under `id`.
    ///
    /// - Throws: `StoreError`.
    @discardableResult
    public func deleteSession(id: String) async throws(StoreError) -> Bool {
        let operation = "deleteSession"
        try StoreValidation.checkKey(id, "session id", operation: operation)
        let digest = Self.digest(id)
        return try await database.perform(operation) { connection throws(StoreError) in
            try connection.run("DELETE FROM sessions WHERE id_digest = $1", [.bytes(digest)], operation: operation) > 0
        }
    }

    /// Deletes every session of the user.
    ///
    /// - Throws: `StoreError`.
    @discardableResult
    public func deleteSessions(userID: UserID) async throws(StoreError) -> Int {
        let operation = "deleteSessions(userID:)"
        return try await database.perform(operation) { connection throws(StoreError) in
            try connection.run(
                "DELETE FROM sessions WHERE user_id = $1", [.text(userID.rawValue)], operation: operation)
        }
    }

    /// Deletes every session signed in with the identity.
    ///
    /// - Throws: `StoreError`.
    @discardableResult
    public func deleteSessions(identity: IdentityKey) async throws(StoreError) -> Int {
        let operation = "deleteSessions(identity:)"
        return try await database.perform(operation) { connection throws(StoreError) in
            try connection.run(
                "DELETE FROM sessions WHERE provider = $1 AND subject = $2",
                [.text(identity.provider), .text(identity.subject)], operation: operation)
        }
    }

    /// Deletes every session that began with the provider session `providerSessionID` of the identity (any
    /// subject of the provider when `identity.subject` is empty).
    ///
    /// - Throws: `StoreError` `invalidValue` for an empty provider or provider session id.
    @discardableResult
    public func deleteSessions(identity: IdentityKey, providerSessionID: String) async throws(StoreError) -> Int {
        let operation = "deleteSessions(identity:providerSessionID:)"
        try StoreValidation.checkKey(identity.provider, "provider", operation: operation)
        try StoreValidation.checkKey(providerSessionID, "provider session id", operation: operation)
        let parameters: [PostgresValue] = [.text(identity.provider), .text(providerSessionID), .text(identity.subject)]
        return try await database.perform(operation) { connection throws(StoreError) in
            try connection.run(
                """
                DELETE FROM sessions WHERE provider = $1 AND provider_session_id = $2 AND ($3 = '' OR subject = $3)
                """, parameters, operation: operation)
        }
    }

    /// Checks that the server answers and holds the schema.
    ///
    /// - Throws: `StoreError`.
    public func checkHealth() async throws(StoreError) {
        try await database.checkHealth()
    }

    static func digest(_ id: String) -> [UInt8] { Digest.sha256(Array(id.utf8)) }
}
