import AuthFlow

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
    ]

    /// Brings the database to ``currentVersion`` in one transaction; a database from a newer version, or one
    /// that is not an AuthFlow database, is refused before anything is written.
    static func migrate(_ connection: SQLiteConnection) throws(StoreError) {
        // Checked outside the transaction first so a refused file is never locked for writing.
        try check(connection)
        try connection.transaction(immediate: true, operation: "migrate") { () throws(StoreError) in
            let version = try check(connection)
            guard version < currentVersion else { return }
            for index in version..<currentVersion {
                try connection.execute(migrations[index], operation: "migrate to schema version \(index + 1)")
            }
            // PRAGMA takes no bound parameters; both numbers are constants of this code, not input.
            try connection.execute("PRAGMA application_id = \(applicationID)", operation: "migrate")
            try connection.execute("PRAGMA user_version = \(currentVersion)", operation: "migrate")
        }
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
