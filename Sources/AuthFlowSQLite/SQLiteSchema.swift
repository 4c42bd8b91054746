import AuthFlowStores

/// The database schema, versioned in code: migration `n` (1-based) takes a database from `PRAGMA user_version`
/// `n - 1` to `n`. Migrations are only ever appended, never edited.
enum SQLiteSchema {
    /// `PRAGMA application_id` of an AuthFlow database ("AFlw").
    static let applicationID: Int64 = 0x4146_6C77

    /// The newest schema version this code knows.
    static var currentVersion: Int { migrations.count }

    /// Times are REAL seconds since 1970 (UTC). Booleans are INTEGER 0/1. Token columns hold
    /// `TokenCipher` output; session ids are stored only as their SHA-256 digest.
    static let migrations: [String] = [
        """
        CREATE TABLE users (
            id TEXT PRIMARY KEY NOT NULL,
            created_at REAL NOT NULL
        ) STRICT;
        CREATE TABLE identities (
            provider TEXT NOT NULL,
            subject TEXT NOT NULL,
            user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            email TEXT,
            email_normalized TEXT,
            email_verified INTEGER NOT NULL CHECK (email_verified IN (0, 1)),
            is_private_email INTEGER NOT NULL CHECK (is_private_email IN (0, 1)),
            email_disabled INTEGER NOT NULL CHECK (email_disabled IN (0, 1)),
            name TEXT,
            disabled INTEGER NOT NULL CHECK (disabled IN (0, 1)),
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL,
            PRIMARY KEY (provider, subject)
        ) STRICT;
        CREATE INDEX identities_by_user ON identities(user_id);
        CREATE INDEX identities_by_verified_email ON identities(email_normalized)
            WHERE email_verified = 1 AND disabled = 0;
        CREATE TABLE identity_tokens (
            provider TEXT NOT NULL,
            subject TEXT NOT NULL,
            access_token BLOB,
            refresh_token BLOB,
            access_token_expires_at REAL,
            scope TEXT,
            updated_at REAL NOT NULL,
            PRIMARY KEY (provider, subject),
            FOREIGN KEY (provider, subject) REFERENCES identities(provider, subject) ON DELETE CASCADE
        ) STRICT;
        CREATE TABLE pending_profiles (
            key TEXT PRIMARY KEY NOT NULL,
            provider TEXT NOT NULL,
            first_name TEXT,
            last_name TEXT,
            expires_at REAL NOT NULL
        ) STRICT;
        CREATE INDEX pending_profiles_by_expiry ON pending_profiles(expires_at);
        CREATE TABLE applied_notifications (
            id TEXT PRIMARY KEY NOT NULL,
            applied_at REAL NOT NULL
        ) STRICT;
        CREATE TABLE sessions (
            id_digest BLOB PRIMARY KEY NOT NULL,
            user_id TEXT NOT NULL,
            provider TEXT NOT NULL,
            subject TEXT NOT NULL,
            created_at REAL NOT NULL,
            expires_at REAL NOT NULL
        ) STRICT;
        CREATE INDEX sessions_by_user ON sessions(user_id);
        CREATE INDEX sessions_by_identity ON sessions(provider, subject);
        CREATE INDEX sessions_by_expiry ON sessions(expires_at);
        CREATE TABLE flow_states (
            state TEXT PRIMARY KEY NOT NULL,
            record BLOB NOT NULL,
            expires_at REAL NOT NULL
        ) STRICT;
        CREATE INDEX flow_states_by_expiry ON flow_states(expires_at);
        """,
        // 2: the provider's session id (id_token `sid`) of a session, for OpenID Connect back-channel logout.
        """
        ALTER TABLE sessions ADD COLUMN provider_session_id TEXT;
        CREATE INDEX sessions_by_provider_session ON sessions(provider, provider_session_id)
            WHERE provider_session_id IS NOT NULL;
        """,
        // Version 3: sign-in starts store nothing (the flow record is sealed in the flow cookie); the flow
        // store keeps only the digests of spent states.
        """
        DROP TABLE flow_states;
        CREATE TABLE spent_states (
            state_digest TEXT PRIMARY KEY NOT NULL,
            expires_at REAL NOT NULL
        ) STRICT;
        CREATE INDEX spent_states_by_expiry ON spent_states(expires_at);
        """,
        // Version 4: the single-flight refresh lease on a token row (who refreshes it, until when); the
        // verified-email index in the form the statements shared with PostgreSQL use (`email_verified AND NOT
        // disabled`), so the planner still picks it.
        """
        ALTER TABLE identity_tokens ADD COLUMN refresh_lease_holder TEXT;
        ALTER TABLE identity_tokens ADD COLUMN refresh_lease_until REAL;
        DROP INDEX identities_by_verified_email;
        CREATE INDEX identities_by_verified_email ON identities(email_normalized)
            WHERE email_verified AND NOT disabled;
        """,
        // Version 5: the lookup index of refresh tokens, for revocation notices that name a token (Google RISC
        // `token-revoked`): base64 SHA-512 of SHA-512 of it, and a keyed digest of its prefix. Rows written
        // before get them on their next save or refresh that carries a refresh token.
        """
        ALTER TABLE identity_tokens ADD COLUMN refresh_token_hash TEXT;
        ALTER TABLE identity_tokens ADD COLUMN refresh_token_prefix_digest BLOB;
        CREATE INDEX identity_tokens_by_refresh_hash ON identity_tokens(provider, refresh_token_hash)
            WHERE refresh_token_hash IS NOT NULL;
        CREATE INDEX identity_tokens_by_refresh_prefix ON identity_tokens(provider, refresh_token_prefix_digest)
            WHERE refresh_token_prefix_digest IS NOT NULL;
        """,
        // Version 6: every table WITHOUT ROWID, its primary key being the table's own B-tree. A rowid table with a
        // text or blob primary key keeps that key in a second B-tree (the automatic index), so each insert wrote
        // two leaf pages where it now writes one: a first sign-in (five inserts) appends about 12 WAL frames
        // instead of 16. The columns, constraints and indexes are those of version 5. SQLite's procedure for
        // schema changes ALTER TABLE cannot make: a new table, its rows copied in key order, the old one dropped
        // (foreign keys are off meanwhile, see `migrate`), the new one renamed, its indexes created again.
        """
        CREATE TABLE new_users (
            id TEXT PRIMARY KEY NOT NULL,
            created_at REAL NOT NULL
        ) STRICT, WITHOUT ROWID;
        INSERT INTO new_users (id, created_at) SELECT id, created_at FROM users ORDER BY id;
        DROP TABLE users;
        ALTER TABLE new_users RENAME TO users;

        CREATE TABLE new_identities (
            provider TEXT NOT NULL,
            subject TEXT NOT NULL,
            user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            email TEXT,
            email_normalized TEXT,
            email_verified INTEGER NOT NULL CHECK (email_verified IN (0, 1)),
            is_private_email INTEGER NOT NULL CHECK (is_private_email IN (0, 1)),
            email_disabled INTEGER NOT NULL CHECK (email_disabled IN (0, 1)),
            name TEXT,
            disabled INTEGER NOT NULL CHECK (disabled IN (0, 1)),
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL,
            PRIMARY KEY (provider, subject)
        ) STRICT, WITHOUT ROWID;
        INSERT INTO new_identities (provider, subject, user_id, email, email_normalized, email_verified,
            is_private_email, email_disabled, name, disabled, created_at, updated_at)
        SELECT provider, subject, user_id, email, email_normalized, email_verified, is_private_email,
            email_disabled, name, disabled, created_at, updated_at
        FROM identities ORDER BY provider, subject;
        DROP TABLE identities;
        ALTER TABLE new_identities RENAME TO identities;
        CREATE INDEX identities_by_user ON identities(user_id);
        CREATE INDEX identities_by_verified_email ON identities(email_normalized)
            WHERE email_verified AND NOT disabled;

        CREATE TABLE new_identity_tokens (
            provider TEXT NOT NULL,
            subject TEXT NOT NULL,
            access_token BLOB,
            refresh_token BLOB,
            access_token_expires_at REAL,
            scope TEXT,
            updated_at REAL NOT NULL,
            refresh_lease_holder TEXT,
            refresh_lease_until REAL,
            refresh_token_hash TEXT,
            refresh_token_prefix_digest BLOB,
            PRIMARY KEY (provider, subject),
            FOREIGN KEY (provider, subject) REFERENCES identities(provider, subject) ON DELETE CASCADE
        ) STRICT, WITHOUT ROWID;
        INSERT INTO new_identity_tokens (provider, subject, access_token, refresh_token, access_token_expires_at,
            scope, updated_at, refresh_lease_holder, refresh_lease_until, refresh_token_hash,
            refresh_token_prefix_digest)
        SELECT provider, subject, access_token, refresh_token, access_token_expires_at, scope, updated_at,
            refresh_lease_holder, refresh_lease_until, refresh_token_hash, refresh_token_prefix_digest
        FROM identity_tokens ORDER BY provider, subject;
        DROP TABLE identity_tokens;
        ALTER TABLE new_identity_tokens RENAME TO identity_tokens;
        CREATE INDEX identity_tokens_by_refresh_hash ON identity_tokens(provider, refresh_token_hash)
            WHERE refresh_token_hash IS NOT NULL;
        CREATE INDEX identity_tokens_by_refresh_prefix ON identity_tokens(provider, refresh_token_prefix_digest)
            WHERE refresh_token_prefix_digest IS NOT NULL;

        CREATE TABLE new_pending_profiles (
            key TEXT PRIMARY KEY NOT NULL,
            provider TEXT NOT NULL,
            first_name TEXT,
            last_name TEXT,
            expires_at REAL NOT NULL
        ) STRICT, WITHOUT ROWID;
        INSERT INTO new_pending_profiles (key, provider, first_name, last_name, expires_at)
        SELECT key, provider, first_name, last_name, expires_at FROM pending_profiles ORDER BY key;
        DROP TABLE pending_profiles;
        ALTER TABLE new_pending_profiles RENAME TO pending_profiles;
        CREATE INDEX pending_profiles_by_expiry ON pending_profiles(expires_at);

        CREATE TABLE new_applied_notifications (
            id TEXT PRIMARY KEY NOT NULL,
            applied_at REAL NOT NULL
        ) STRICT, WITHOUT ROWID;
        INSERT INTO new_applied_notifications (id, applied_at)
        SELECT id, applied_at FROM applied_notifications ORDER BY id;
        DROP TABLE applied_notifications;
        ALTER TABLE new_applied_notifications RENAME TO applied_notifications;

        CREATE TABLE new_sessions (
            id_digest BLOB PRIMARY KEY NOT NULL,
            user_id TEXT NOT NULL,
            provider TEXT NOT NULL,
            subject TEXT NOT NULL,
            created_at REAL NOT NULL,
            expires_at REAL NOT NULL,
            provider_session_id TEXT
        ) STRICT, WITHOUT ROWID;
        INSERT INTO new_sessions (id_digest, user_id, provider, subject, created_at, expires_at, provider_session_id)
        SELECT id_digest, user_id, provider, subject, created_at, expires_at, provider_session_id
        FROM sessions ORDER BY id_digest;
        DROP TABLE sessions;
        ALTER TABLE new_sessions RENAME TO sessions;
        CREATE INDEX sessions_by_user ON sessions(user_id);
        CREATE INDEX sessions_by_identity ON sessions(provider, subject);
        CREATE INDEX sessions_by_expiry ON sessions(expires_at);
        CREATE INDEX sessions_by_provider_session ON sessions(provider, provider_session_id)
            WHERE provider_session_id IS NOT NULL;

        CREATE TABLE new_spent_states (
            state_digest TEXT PRIMARY KEY NOT NULL,
            expires_at REAL NOT NULL
        ) STRICT, WITHOUT ROWID;
        INSERT INTO new_spent_states (state_digest, expires_at)
        SELECT state_digest, expires_at FROM spent_states ORDER BY state_digest;
        DROP TABLE spent_states;
        ALTER TABLE new_spent_states RENAME TO spent_states;
        CREATE INDEX spent_states_by_expiry ON spent_states(expires_at);
        """,
        // Version 6: the kind of a session (a browser's cookie or a native app's bearer token), and the client
        // provider tokens were issued to when it is not the provider's client_id (Apple's native code exchange).
        """
        ALTER TABLE sessions ADD COLUMN kind TEXT NOT NULL DEFAULT 'cookie';
        ALTER TABLE identity_tokens ADD COLUMN client_id TEXT;
        """,
        // Version 8: what a session shows its user and the access rules: the provider's groups (a JSON array of
        // strings, NULL for none), when it was last used (NULL: its creation time) and a short summary of the
        // browser that signed in.
        """
        ALTER TABLE sessions ADD COLUMN group_names TEXT;
        ALTER TABLE sessions ADD COLUMN last_used_at REAL;
        ALTER TABLE sessions ADD COLUMN agent TEXT;
        """,
        // Version 9: passkeys (WebAuthn credentials), each on its identity (provider, base64url(user handle)), so it
        // goes with the identity and with the user. The credential id is unique across providers and users.
        """
        CREATE TABLE passkeys (
            id BLOB PRIMARY KEY NOT NULL,
            provider TEXT NOT NULL,
            subject TEXT NOT NULL,
            user_id TEXT NOT NULL,
            public_key BLOB NOT NULL,
            algorithm REAL NOT NULL,
            sign_count REAL NOT NULL,
            backup_eligible INTEGER NOT NULL CHECK (backup_eligible IN (0, 1)),
            backed_up INTEGER NOT NULL CHECK (backed_up IN (0, 1)),
            aaguid BLOB NOT NULL,
            transports TEXT NOT NULL,
            attestation_format TEXT NOT NULL,
            attestation_verified INTEGER NOT NULL CHECK (attestation_verified IN (0, 1)),
            name TEXT NOT NULL,
            created_at REAL NOT NULL,
            last_used_at REAL,
            FOREIGN KEY (provider, subject) REFERENCES identities(provider, subject) ON DELETE CASCADE
        ) STRICT, WITHOUT ROWID;
        CREATE INDEX passkeys_by_user ON passkeys(user_id);
        CREATE INDEX passkeys_by_identity ON passkeys(provider, subject);
        """,
    ]

    /// Brings the database to ``currentVersion`` in one transaction; a database from a newer version, or one
    /// that is not an AuthFlow database, is refused before anything is written.
    ///
    /// Foreign keys are switched off for the transaction (rebuilding a table drops it, and with them on, dropping
    /// `users` would delete every identity; SQLite takes the switch only outside a transaction) and back on after
    /// it, whether it committed or not. Before committing, every foreign key is checked: a row naming a missing
    /// row refuses the migration with `corruptData`, and the file stays at its version with every row.
    static func migrate(_ connection: SQLiteConnection) throws(StoreError) {
        // Checked outside the transaction first so a refused file, or one already current, is never locked for
        // writing.
        guard try check(connection) < currentVersion else { return }
        let foreignKeys =
            try connection.query("PRAGMA foreign_keys", operation: "migrate").first?.integer(0) ?? 0
        if foreignKeys != 0 { try connection.execute("PRAGMA foreign_keys = OFF", operation: "migrate") }
        do throws(StoreError) {
            try connection.transaction(immediate: true, operation: "migrate") { () throws(StoreError) in
                // Another connection may have migrated the file since the first check.
                let version = try check(connection)
                guard version < currentVersion else { return }
                for index in version..<currentVersion {
                    try connection.execute(migrations[index], operation: "migrate to schema version \(index + 1)")
                }
                try checkForeignKeys(connection, from: version)
                // PRAGMA takes no bound parameters; both numbers are constants of this code, not input.
                try connection.execute("PRAGMA application_id = \(applicationID)", operation: "migrate")
                try connection.execute("PRAGMA user_version = \(currentVersion)", operation: "migrate")
            }
        } catch {
            if foreignKeys != 0 { try? connection.execute("PRAGMA foreign_keys = ON", operation: "migrate") }
            throw error
        }
        if foreignKeys != 0 { try connection.execute("PRAGMA foreign_keys = ON", operation: "migrate") }
    }

    /// Throws `corruptData` when a row's foreign key names no row (`PRAGMA foreign_key_check`), naming the tables
    /// and how many rows, never a key.
    static func checkForeignKeys(_ connection: SQLiteConnection, from version: Int) throws(StoreError) {
        var dangling: [String: Int] = [:]
        for row in try connection.query("PRAGMA foreign_key_check", operation: "migrate") {
            dangling["\(try row.text(0)) -> \(try row.text(2))", default: 0] += 1
        }
        guard !dangling.isEmpty else { return }
        let found = dangling.sorted { $0.key < $1.key }.map { "\($0.value) in \($0.key)" }.joined(separator: ", ")
        throw StoreError(
            .corruptData,
            "expected every foreign key to name a stored row before migrating to schema version \(currentVersion), "
                + "found rows naming missing ones (table -> parent: \(found)); the file was left at schema version "
                + "\(version) with every row (PRAGMA foreign_key_check lists them)",
            operation: "migrate")
    }

    /// The database's schema version, after checking this code can use it.
    @discardableResult
    static func check(_ connection: SQLiteConnection) throws(StoreError) -> Int {
        let version =
            try connection.query("PRAGMA user_version", operation: "read schema version")
            .first?.integer(0) ?? 0
        let application =
            try connection.query("PRAGMA application_id", operation: "read schema version")
            .first?.integer(0) ?? 0
        if version == 0 {
            let objects =
                try connection.query(
                    "SELECT count(*) FROM sqlite_schema", operation: "read schema version"
                ).first?.integer(0) ?? 0
            guard objects == 0 else {
                throw StoreError(
                    .unsupportedSchema,
                    "expected an empty file or an AuthFlow database, found a database with \(objects) schema objects "
                        + "and no AuthFlow schema version",
                    operation: "open")
            }
            return 0
        }
        guard application == applicationID else {
            throw StoreError(
                .unsupportedSchema,
                "expected an AuthFlow database (application_id \(applicationID)), found application_id \(application)",
                operation: "open")
        }
        guard version <= Int64(currentVersion) else {
            throw StoreError(
                .unsupportedSchema,
                "expected schema version \(currentVersion) or older, found \(version): the database was written by a "
                    + "newer AuthFlow; upgrade AuthFlow (the file was left untouched)",
                operation: "open")
        }
        return Int(version)
    }
}
