import AuthFlowStores
import Foundation

/// Reading and writing identity rows inside a running operation.
extension SQLAccountStore {
    static var identityColumns: String {
        """
        user_id, provider, subject, email, email_verified, is_private_email, email_disabled, name, disabled, \
        created_at, updated_at
        """
    }

    /// The identity's row, locked with `lock` (`database.forUpdate`) when given.
    static func identity(
        _ key: IdentityKey, lock: String = "", in connection: any SQLConnection, operation: String
    ) throws(StoreError) -> LinkedIdentity? {
        let rows = try connection.query(
            "SELECT \(identityColumns) FROM identities WHERE provider = $1 AND subject = $2" + lock,
            .text(key.provider), .text(key.subject), operation: operation)
        return try rows.first.map { row throws(StoreError) in try identity(from: row) }
    }

    static func account(_ id: UserID, in connection: any SQLConnection, operation: String) throws(StoreError)
        -> UserAccount?
    {
        guard
            let user = try connection.query(
                "SELECT created_at FROM users WHERE id = $1", .text(id.rawValue), operation: operation
            ).first
        else { return nil }
        let rows = try connection.query(
            "SELECT \(identityColumns) FROM identities WHERE user_id = $1 ORDER BY created_at, provider, subject",
            .text(id.rawValue), operation: operation)
        var identities: [LinkedIdentity] = []
        for row in rows { identities.append(try identity(from: row)) }
        return UserAccount(id: id, createdAt: try user.date(0), identities: identities)
    }

    static func identity(from row: any StoreRow) throws(StoreError) -> LinkedIdentity {
        LinkedIdentity(
            userID: UserID(rawValue: try row.text(0)), provider: try row.text(1), subject: try row.text(2),
            email: try row.optionalText(3), emailVerified: try row.bool(4), isPrivateEmail: try row.bool(5),
            emailDisabled: try row.bool(6), name: try row.optionalText(7), isDisabled: try row.bool(8),
            createdAt: try row.date(9), updatedAt: try row.date(10))
    }

    /// Inserts the identity; `false` (nothing written) when `(provider, subject)` is already stored.
    static func insert(_ identity: LinkedIdentity, in connection: any SQLConnection, operation: String)
        throws(StoreError) -> Bool
    {
        try connection.run(
            """
            INSERT INTO identities (\(identityColumns), email_normalized)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT (provider, subject) DO NOTHING
            """,
            .text(identity.userID.rawValue), .text(identity.provider), .text(identity.subject),
            .optional(identity.email), .bool(identity.emailVerified), .bool(identity.isPrivateEmail),
            .bool(identity.emailDisabled), .optional(identity.name), .bool(identity.isDisabled),
            .real(identity.createdAt.timeIntervalSince1970), .real(identity.updatedAt.timeIntervalSince1970),
            .optional(identity.email.map(StoreValidation.normalizedEmail)), operation: operation) > 0
    }

    static func update(_ identity: LinkedIdentity, in connection: any SQLConnection, operation: String)
        throws(StoreError)
    {
        try connection.run(
            """
            UPDATE identities SET email = $1, email_normalized = $2, email_verified = $3, is_private_email = $4,
                email_disabled = $5, name = $6, disabled = $7, updated_at = $8
            WHERE provider = $9 AND subject = $10
            """,
            .optional(identity.email), .optional(identity.email.map(StoreValidation.normalizedEmail)),
            .bool(identity.emailVerified), .bool(identity.isPrivateEmail), .bool(identity.emailDisabled),
            .optional(identity.name), .bool(identity.isDisabled), .real(identity.updatedAt.timeIntervalSince1970),
            .text(identity.provider), .text(identity.subject), operation: operation)
    }
}
