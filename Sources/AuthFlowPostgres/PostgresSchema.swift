import AuthFlowStores

/// The database schema, versioned in code: migration `n` (1-based) takes the database from version `n - 1`
/// (the row in `authflow_schema`) to `n`. Migrations are only ever appended, never edited; each is a list of
/// statements run in one transaction.
enum PostgresSchema {
    /// The advisory lock key migrations hold ("AFlw" as a number), so concurrent starts migrate once.
    static let migrationLock: Int64 = 0x4146_6C77

    /// The newest schema version this code knows.
    static var currentVersion: Int { migrations.count }

    /// Times are `double precision` seconds since 1970 (UTC), as in the SQLite store. Token columns hold
    /// `TokenCipher` output; session ids and spent states are stored only as SHA-256 digests.
    static let migrations: [[String]] = [
        [
            "CREATE TABLE users (id text PRIMARY KEY, created_at double precision NOT NULL)",
            """
            CREATE TABLE identities (
                provider text NOT NULL,
                subject text NOT NULL,
                user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                email text,
                email_normalized text,
                email_verified boolean NOT NULL,
                is_private_email boolean NOT NULL,
                email_disabled boolean NOT NULL,
                name text,
                disabled boolean NOT NULL,
                created_at double precision NOT NULL,
                updated_at double precision NOT NULL,
                PRIMARY KEY (provider, subject)
            )
            """,
            "CREATE INDEX identities_by_user ON identities(user_id)",
            """
            CREATE INDEX identities_by_verified_email ON identities(email_normalized)
                WHERE email_verified AND NOT disabled
            """,
            """
            CREATE TABLE identity_tokens (
                provider text NOT NULL,
                subject text NOT NULL,
                access_token bytea,
                refresh_token bytea,
                access_token_expires_at double precision,
                scope text,
                updated_at double precision NOT NULL,
                PRIMARY KEY (provider, subject),
                FOREIGN KEY (provider, subject) REFERENCES identities(provider, subject) ON DELETE CASCADE
            )
            """,
            """
            CREATE TABLE pending_profiles (
                key text PRIMARY KEY,
                provider text NOT NULL,
                first_name text,
                last_name text,
                expires_at double precision NOT NULL
            )
            """,
            "CREATE INDEX pending_profiles_by_expiry ON pending_profiles(expires_at)",
            "CREATE TABLE applied_notifications (id text PRIMARY KEY, applied_at double precision NOT NULL)",
            """
            CREATE TABLE sessions (
                id_digest bytea PRIMARY KEY,
                user_id text NOT NULL,
                provider text NOT NULL,
                subject text NOT NULL,
                created_at double precision NOT NULL,
                expires_at double precision NOT NULL,
                provider_session_id text
            )
            """,
            "CREATE INDEX sessions_by_user ON sessions(user_id)",
            """
            CREATE INDEX sessions_by_provider_session ON sessions(provider, provider_session_id)
                WHERE provider_session_id IS NOT NULL
            """,
            "CREATE INDEX sessions_by_identity ON sessions(provider, subject)",
            "CREATE INDEX sessions_by_expiry ON sessions(expires_at)",
            """
            CREATE TABLE spent_states (
                state_digest text PRIMARY KEY,
                expires_at double precision NOT NULL
            )
            """,
            "CREATE INDEX spent_states_by_expiry ON spent_states(expires_at)",
            """
            CREATE TABLE rate_limits (
                key_digest bytea PRIMARY KEY,
                tokens double precision NOT NULL,
                updated_at double precision NOT NULL,
                full_at double precision NOT NULL,
                allowed boolean NOT NULL
            )
            """,
            "CREATE INDEX rate_limits_by_full ON rate_limits(full_at)",
        ],
        // 2: the single-flight refresh lease on a token row (who refreshes it, until when).
        [
            "ALTER TABLE identity_tokens ADD COLUMN refresh_lease_holder text",
            "ALTER TABLE identity_tokens ADD COLUMN refresh_lease_until double precision",
        ],
        // 3: the lookup index of refresh tokens, for revocation notices that name a token (Google RISC
        // `token-revoked`): base64 SHA-512 of SHA-512 of it, and a keyed digest of its prefix. Rows written
        // before get them on their next save or refresh that carries a refresh token.
        [
            "ALTER TABLE identity_tokens ADD COLUMN refresh_token_hash text",
            "ALTER TABLE identity_tokens ADD COLUMN refresh_token_prefix_digest bytea",
            """
            CREATE INDEX identity_tokens_by_refresh_hash ON identity_tokens(provider, refresh_token_hash)
                WHERE refresh_token_hash IS NOT NULL
            """,
            """
            CREATE INDEX identity_tokens_by_refresh_prefix ON identity_tokens(provider, refresh_token_prefix_digest)
                WHERE refresh_token_prefix_digest IS NOT NULL
            """,
        ],
        // 4: the kind of a session (a browser's cookie or a native app's bearer token), and the client provider
        // tokens were issued to when it is not the provider's client_id (Apple's native code exchange).
        [
            "ALTER TABLE sessions ADD COLUMN kind text NOT NULL DEFAULT 'cookie'",
            "ALTER TABLE identity_tokens ADD COLUMN client_id text",
        ],
        // 5: what a session shows its user and the access rules: the provider's groups (a JSON array of strings,
        // NULL for none), when it was last used (NULL: its creation time) and a short summary of the browser
        // that signed in.
        [
            "ALTER TABLE sessions ADD COLUMN group_names text",
            "ALTER TABLE sessions ADD COLUMN last_used_at double precision",
            "ALTER TABLE sessions ADD COLUMN agent text",
        ],
        // 6: passkeys (WebAuthn credentials), each on its identity (provider, base64url(user handle)), so it goes
        // with the identity and with the user. The credential id is unique across providers and users.
        [
            """
            CREATE TABLE passkeys (
                id bytea PRIMARY KEY,
                provider text NOT NULL,
                subject text NOT NULL,
                user_id text NOT NULL,
                public_key bytea NOT NULL,
                algorithm double precision NOT NULL,
                sign_count double precision NOT NULL,
                backup_eligible boolean NOT NULL,
                backed_up boolean NOT NULL,
                aaguid bytea NOT NULL,
                transports text NOT NULL,
                attestation_format text NOT NULL,
                attestation_verified boolean NOT NULL,
                name text NOT NULL,
                created_at double precision NOT NULL,
                last_used_at double precision,
                FOREIGN KEY (provider, subject) REFERENCES identities(provider, subject) ON DELETE CASCADE
            )
            """,
            "CREATE INDEX passkeys_by_user ON passkeys(user_id)",
            "CREATE INDEX passkeys_by_identity ON passkeys(provider, subject)",
        ],
    ]

    /// Brings the database to `currentVersion` under the migration advisory lock, in one transaction; a
    /// database from a newer version is refused before anything is written.
    static func migrate(_ connection: PostgresConnection) throws(StoreError) {
        let operation = "migrate"
        try connection.query("SELECT pg_advisory_lock($1)", [.integer(migrationLock)], operation: operation)
        defer {
            _ = try? connection.query("SELECT pg_advisory_unlock($1)", [.integer(migrationLock)], operation: operation)
        }
        try connection.transaction(operation: operation) { () throws(StoreError) in
            try connection.run(
                """
                CREATE TABLE IF NOT EXISTS authflow_schema (
                    singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
                    version integer NOT NULL
                )
                """, operation: operation)
            let version = Int(try Self.version(connection, operation: operation) ?? 0)
            guard version <= currentVersion else {
                throw StoreError(
                    .unsupportedSchema,
                    "expected schema version \(currentVersion) or older, found \(version): the database was written "
                        + "by a newer AuthFlow; upgrade AuthFlow (the database was left untouched)",
                    operation: "open")
            }
            guard version < currentVersion else { return }
            for index in version..<currentVersion {
                for statement in migrations[index] {
                    try connection.run(statement, operation: "migrate to schema version \(index + 1)")
                }
            }
            try connection.run(
                """
                INSERT INTO authflow_schema (singleton, version) VALUES (true, $1)
                ON CONFLICT (singleton) DO UPDATE SET version = excluded.version
                """, [.integer(Int64(currentVersion))], operation: operation)
        }
    }

    /// The stored schema version, or `nil` when none is recorded.
    static func version(_ connection: PostgresConnection, operation: String) throws(StoreError) -> Int64? {
        try connection.query("SELECT version FROM authflow_schema", operation: operation).first?.integer(0)
    }
}
