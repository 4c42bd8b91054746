package import AuthFlowStores
import Foundation

/// Apple's pending first-login names and applied notification ids.
extension SQLAccountStore {
    /// Parks a pending profile in one transaction (purge expired records, check the capacity when bounded,
    /// insert); an expired record with the same key is replaced.
    package func putPendingProfile(_ profile: PendingProfile) async throws(StoreError) {
        let operation = "putPendingProfile"
        let capacity = pendingCapacity
        let now = clock.now().timeIntervalSince1970
        try StoreValidation.checkPendingProfile(profile, now: Date(timeIntervalSince1970: now), operation: operation)
        let inserted = try await database.withTransaction(operation, writes: true) { connection throws(StoreError) in
            try connection.run("DELETE FROM pending_profiles WHERE expires_at <= $1", .real(now), operation: operation)
            if let capacity {
                let live =
                    try connection.query("SELECT count(*) FROM pending_profiles", operation: operation).first
                    .map { row throws(StoreError) in try row.real(0) } ?? 0
                guard live < Double(capacity) else {
                    throw StoreError(
                        .capacityExceeded, "expected fewer than \(capacity) live pending profiles, found \(Int(live))",
                        operation: operation)
                }
            }
            return try connection.run(
                """
                INSERT INTO pending_profiles (key, provider, first_name, last_name, expires_at)
                VALUES ($1, $2, $3, $4, $5) ON CONFLICT (key) DO NOTHING
                """,
                .text(profile.key), .text(profile.provider), .optional(profile.firstName), .optional(profile.lastName),
                .real(profile.expiresAt.timeIntervalSince1970), operation: operation)
        }
        guard inserted > 0 else {
            throw StoreError(
                .duplicateKey, "expected a new pending profile key, found one that is stored", operation: operation)
        }
    }

    /// Removes and returns the live pending profile under `key` in one statement
    /// (`DELETE … WHERE key = $1 AND expires_at > $2 RETURNING …`).
    package func takePendingProfile(key: String) async throws(StoreError) -> PendingProfile? {
        let operation = "takePendingProfile"
        try StoreValidation.checkKey(key, "pending profile key", operation: operation)
        let now = clock.now().timeIntervalSince1970
        return try await database.withConnection(operation) { connection throws(StoreError) in
            let rows = try connection.query(
                """
                DELETE FROM pending_profiles WHERE key = $1 AND expires_at > $2
                RETURNING provider, first_name, last_name, expires_at
                """, .text(key), .real(now), operation: operation)
            return try rows.first.map { row throws(StoreError) in
                PendingProfile(
                    key: key, provider: try row.text(0), firstName: try row.optionalText(1),
                    lastName: try row.optionalText(2), expiresAt: try row.date(3))
            }
        }
    }

    /// Records `id` and applies every change in one transaction; `false` (nothing changed) when `id` was
    /// applied before, by this instance or another (the primary key on the id decides).
    package func applyNotification(id: String, changes: [AccountChange]) async throws(StoreError) -> Bool {
        let operation = "applyNotification"
        try StoreValidation.checkKey(id, "notification id", operation: operation)
        for change in changes {
            try StoreValidation.checkIdentity(change.identity, operation: operation)
            if case .updateProfile(_, let update) = change {
                try StoreValidation.checkUpdate(update, operation: operation)
            }
        }
        let now = clock.now()
        let forUpdate = database.forUpdate
        return try await database.withTransaction(operation, writes: true) { connection throws(StoreError) in
            let recorded = try connection.run(
                "INSERT INTO applied_notifications (id, applied_at) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING",
                .text(id), .real(now.timeIntervalSince1970), operation: operation)
            guard recorded > 0 else { return false }
            for change in changes {
                let key = change.identity
                guard let stored = try Self.identity(key, lock: forUpdate, in: connection, operation: operation)
                else { throw Self.identityNotFound(operation) }
                switch change {
                case .updateProfile(_, let update):
                    let updated = stored.applying(update, at: now)
                    if updated != stored { try Self.update(updated, in: connection, operation: operation) }
                case .setDisabled(_, let disabled):
                    let updated = stored.settingDisabled(disabled, at: now)
                    if updated != stored { try Self.update(updated, in: connection, operation: operation) }
                case .deleteTokens:
                    try connection.run(
                        "DELETE FROM identity_tokens WHERE provider = $1 AND subject = $2", .text(key.provider),
                        .text(key.subject), operation: operation)
                case .removeIdentity:
                    try connection.run(
                        "DELETE FROM identity_tokens WHERE provider = $1 AND subject = $2", .text(key.provider),
                        .text(key.subject), operation: operation)
                    try connection.run(
                        "DELETE FROM identities WHERE provider = $1 AND subject = $2", .text(key.provider),
                        .text(key.subject), operation: operation)
                }
            }
            return true
        }
    }

    package func isNotificationApplied(id: String) async throws(StoreError) -> Bool {
        let operation = "isNotificationApplied"
        try StoreValidation.checkKey(id, "notification id", operation: operation)
        return try await database.withConnection(operation) { connection throws(StoreError) in
            !(try connection.query("SELECT 1 FROM applied_notifications WHERE id = $1", .text(id), operation: operation)
                .isEmpty)
        }
    }
}
