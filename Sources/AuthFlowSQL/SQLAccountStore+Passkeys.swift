package import AuthFlowStores
package import Foundation

extension SQLAccountStore: PasskeyStore {
    static var passkeyColumns: String {
        """
        id, provider, subject, user_id, public_key, algorithm, sign_count, backup_eligible, backed_up, aaguid, \
        transports, attestation_format, attestation_verified, name, created_at, last_used_at
        """
    }

    package func passkey(_ id: [UInt8]) async throws(StoreError) -> PasskeyCredential? {
        let operation = "passkey"
        return try await database.withConnection(operation) { connection throws(StoreError) in
            try connection.query(
                "SELECT \(Self.passkeyColumns) FROM passkeys WHERE id = $1", .bytes(id), operation: operation
            ).first.map { row throws(StoreError) in try Self.passkey(from: row) }
        }
    }

    package func passkeys(of user: UserID) async throws(StoreError) -> [PasskeyCredential] {
        let operation = "passkeys(of:)"
        return try await database.withConnection(operation) { connection throws(StoreError) in
            var credentials: [PasskeyCredential] = []
            for row in try connection.query(
                "SELECT \(Self.passkeyColumns) FROM passkeys WHERE user_id = $1 ORDER BY created_at, id",
                .text(user.rawValue), operation: operation)
            {
                credentials.append(try Self.passkey(from: row))
            }
            return credentials
        }
    }

    package func createUser(_ id: UserID, profile: IdentityProfile, passkey credential: PasskeyCredential)
        async throws(StoreError) -> UserAccount
    {
        let operation = "createUser(passkey:)"
        try StoreValidation.checkKey(id.rawValue, "user id", operation: operation)
        try StoreValidation.checkProfile(profile, operation: operation)
        try StoreValidation.checkPasskey(credential, operation: operation)
        guard credential.userID == id else {
            throw StoreError(
                .invalidValue, "expected the credential of the user created, found another user's",
                operation: operation)
        }
        let now = clock.now()
        return try await database.withTransaction(operation, writes: true) { connection throws(StoreError) in
            let linked = LinkedIdentity(user: id, key: credential.identity, profile: profile, at: now)
            try Self.insertUser(id, with: linked, at: now, in: connection, operation: operation)
            try Self.insert(credential, in: connection, operation: operation)
            return UserAccount(id: id, createdAt: now, identities: [linked])
        }
    }

    package func addPasskey(_ credential: PasskeyCredential, profile: IdentityProfile) async throws(StoreError) {
        let operation = "addPasskey"
        try StoreValidation.checkProfile(profile, operation: operation)
        try StoreValidation.checkPasskey(credential, operation: operation)
        let now = clock.now()
        let lockUser = "SELECT 1 FROM users WHERE id = $1" + database.forShare
        try await database.withTransaction(operation, writes: true) { connection throws(StoreError) in
            guard !(try connection.query(lockUser, .text(credential.userID.rawValue), operation: operation).isEmpty)
            else { throw Self.userNotFound(operation) }
            let linked = LinkedIdentity(user: credential.userID, key: credential.identity, profile: profile, at: now)
            if !(try Self.insert(linked, in: connection, operation: operation)) {
                let existing = try Self.identity(credential.identity, in: connection, operation: operation)
                guard existing?.userID == credential.userID else {
                    throw StoreError(
                        .identityAlreadyLinked, "expected an identity not linked to another user, found one that is",
                        operation: operation)
                }
            }
            try Self.insert(credential, in: connection, operation: operation)
        }
    }

    package func recordPasskeyUse(_ id: [UInt8], signCount: UInt32, backedUp: Bool, at time: Date)
        async throws(StoreError)
    {
        let operation = "recordPasskeyUse"
        let changed = try await database.withTransaction(operation, writes: true) { connection throws(StoreError) in
            try connection.run(
                "UPDATE passkeys SET sign_count = $1, backed_up = $2, last_used_at = $3 WHERE id = $4",
                .real(Double(signCount)), .bool(backedUp), .real(time.timeIntervalSince1970), .bytes(id),
                operation: operation)
        }
        guard changed > 0 else { throw Self.credentialNotFound(operation) }
    }

    package func renamePasskey(_ id: [UInt8], of user: UserID, to name: String) async throws(StoreError) {
        let operation = "renamePasskey"
        try StoreValidation.checkPasskeyName(name, operation: operation)
        let changed = try await database.withTransaction(operation, writes: true) { connection throws(StoreError) in
            try connection.run(
                "UPDATE passkeys SET name = $1 WHERE id = $2 AND user_id = $3", .text(name), .bytes(id),
                .text(user.rawValue), operation: operation)
        }
        guard changed > 0 else { throw Self.credentialNotFound(operation) }
    }

    package func deletePasskey(_ id: [UInt8], of user: UserID) async throws(StoreError) -> PasskeyCredential {
        let operation = "deletePasskey"
        let lockUser = "SELECT 1 FROM users WHERE id = $1" + database.forUpdate
        let sealing = sealing
        return try await database.withTransaction(operation, writes: true) { connection throws(StoreError) in
            guard !(try connection.query(lockUser, .text(user.rawValue), operation: operation).isEmpty),
                let row = try connection.query(
                    "SELECT \(Self.passkeyColumns) FROM passkeys WHERE id = $1 AND user_id = $2", .bytes(id),
                    .text(user.rawValue), operation: operation
                ).first
            else { throw Self.credentialNotFound(operation) }
            let credential = try Self.passkey(from: row)
            let siblings = try connection.query(
                "SELECT 1 FROM passkeys WHERE provider = $1 AND subject = $2 AND id <> $3",
                .text(credential.identity.provider), .text(credential.identity.subject), .bytes(id),
                operation: operation)
            if siblings.isEmpty {
                let identities = try connection.query(
                    "SELECT 1 FROM identities WHERE user_id = $1", .text(user.rawValue), operation: operation)
                guard identities.count > 1 else {
                    throw StoreError(
                        .lastIdentity, "expected the user to keep a way to sign in, found this passkey is the last",
                        operation: operation)
                }
                _ = try Self.removeTokens(credential.identity, sealing: sealing, in: connection, operation: operation)
                try connection.run(
                    "DELETE FROM identities WHERE provider = $1 AND subject = $2", .text(credential.identity.provider),
                    .text(credential.identity.subject), operation: operation)
            }
            try connection.run("DELETE FROM passkeys WHERE id = $1", .bytes(id), operation: operation)
            return credential
        }
    }

    /// Inserts the credential.
    ///
    /// - Throws: `duplicateCredential` when its id is stored.
    private static func insert(_ credential: PasskeyCredential, in connection: any SQLConnection, operation: String)
        throws(StoreError)
    {
        let inserted = try connection.run(
            """
            INSERT INTO passkeys (\(passkeyColumns))
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) ON CONFLICT (id) DO NOTHING
            """,
            .bytes(credential.id), .text(credential.identity.provider), .text(credential.identity.subject),
            .text(credential.userID.rawValue), .bytes(credential.publicKey), .real(Double(credential.algorithm)),
            .real(Double(credential.signCount)), .bool(credential.backupEligible), .bool(credential.backedUp),
            .bytes(credential.aaguid), .text(credential.transports.joined(separator: ",")),
            .text(credential.attestationFormat), .bool(credential.attestationVerified), .text(credential.name),
            .real(credential.createdAt.timeIntervalSince1970), .optional(credential.lastUsedAt?.timeIntervalSince1970),
            operation: operation)
        guard inserted > 0 else {
            throw StoreError(
                .duplicateCredential, "expected a credential id not registered before, found one that is",
                operation: operation)
        }
    }

    private static func passkey(from row: any StoreRow) throws(StoreError) -> PasskeyCredential {
        let algorithm = try row.real(5)
        let signCount = try row.real(6)
        guard let id = try row.optionalBytes(0), let publicKey = try row.optionalBytes(4),
            let aaguid = try row.optionalBytes(9), let algorithmValue = Int(exactly: algorithm),
            let count = UInt32(exactly: signCount)
        else {
            throw StoreError(
                .corruptData, "expected a passkey row, found one with a malformed column", operation: "passkey")
        }
        let transports = try row.text(10)
        return PasskeyCredential(
            id: id, identity: IdentityKey(provider: try row.text(1), subject: try row.text(2)),
            userID: UserID(rawValue: try row.text(3)), publicKey: publicKey, algorithm: algorithmValue,
            signCount: count, backupEligible: try row.bool(7), backedUp: try row.bool(8), aaguid: aaguid,
            transports: transports.isEmpty ? [] : transports.split(separator: ",").map(String.init),
            attestationFormat: try row.text(11), attestationVerified: try row.bool(12), name: try row.text(13),
            createdAt: try row.date(14), lastUsedAt: try row.optionalDate(15))
    }

    static func credentialNotFound(_ operation: String) -> StoreError {
        StoreError(
            .credentialNotFound, "expected a stored passkey of this user, found none with that id", operation: operation
        )
    }
}
