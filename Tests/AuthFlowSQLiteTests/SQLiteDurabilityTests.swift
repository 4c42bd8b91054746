import AuthFlowJOSE
import AuthFlowSQL
import AuthFlowStoreTestSupport
import AuthFlowStores
import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlowSQLite

/// Another process sees committed data, decrypts tokens with an independent AES-GCM, and a writer killed with
/// SIGKILL loses only its uncommitted transaction. The other process is Python's `sqlite3` (and
/// `cryptography`), run with `AUTHFLOW_PYTHON`.
@Suite(.enabled(if: PythonProcess.shouldRun, "set AUTHFLOW_PYTHON to run the cross-process SQLite checks"))
struct SQLiteDurabilityTests {
    static let reader = """
        import sys, sqlite3
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.kdf.hkdf import HKDF
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM
        path, secret, provider, subject = sys.argv[1:5]
        db = sqlite3.connect("file:" + path + "?mode=ro", uri=True)
        print(db.execute("PRAGMA user_version").fetchone()[0])
        print(db.execute("SELECT user_id || ' ' || name FROM identities WHERE provider = ? AND subject = ?",
                         (provider, subject)).fetchone()[0])
        sealed = db.execute("SELECT refresh_token FROM identity_tokens WHERE provider = ? AND subject = ?",
                            (provider, subject)).fetchone()[0]
        key = HKDF(hashes.SHA256(), 32, None, b"authflow token encryption v1").derive(secret.encode())
        aad = bytes([sealed[0]]) + ("refresh_token|%d:%s|%s" % (len(provider.encode()), provider, subject)).encode()
        print(AESGCM(key).decrypt(sealed[1:13], sealed[13:], aad).decode())
        print(db.execute("SELECT first_name FROM pending_profiles WHERE key = 'state-apple'").fetchone()[0])
        """

    static let writer = """
        import sys, sqlite3
        path, expires = sys.argv[1], float(sys.argv[2])
        db = sqlite3.connect(path, isolation_level=None, timeout=10)
        db.execute("PRAGMA synchronous = FULL")
        insert = "INSERT INTO pending_profiles (key, provider, first_name, last_name, expires_at) VALUES (?, 'apple', ?, NULL, ?)"
        db.execute("BEGIN IMMEDIATE")
        db.execute(insert, ("committed", "Grace", expires))
        db.execute("COMMIT")
        print("committed")
        db.execute("BEGIN IMMEDIATE")
        db.execute(insert, ("uncommitted", "Ghost", expires))
        print("pending")
        sys.stdin.read()  # holds the transaction open until killed (or its stdin closes)
        """

    @Test func anotherProcessReadsCommittedDataAndDecryptsTheTokens() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("shared.sqlite")
        let store = SQLiteAccountStore(
            database: try SQLiteDatabase(path: path),
            cipher: try TokenCipher(secret: StoreHarness.secret, random: SystemRandom()),
            clock: ManualClock(StoreHarness.start))
        _ = try await store.createUser(.alice, identity: .appleAlice, profile: IdentityProfile(name: "Alice"))
        try await store.saveTokens(
            StoredTokens(accessToken: "a", refreshToken: "r-apple-secret-token"), for: .appleAlice)
        try await store.putPendingProfile(
            PendingProfile(
                key: "state-apple", provider: "apple", firstName: "Ada", lastName: nil, expiresAt: .distantFuture))

        // The Swift connection stays open: the reader must see committed data through the WAL.
        let lines = try await PythonProcess.run(
            Self.reader, [path, StoreHarness.secret, IdentityKey.appleAlice.provider, IdentityKey.appleAlice.subject])
        #expect(lines == ["\(SQLiteSchema.currentVersion)", "u-alice Alice", "r-apple-secret-token", "Ada"])
    }

    @Test func keepsCommittedDataWhenAWriterIsKilled() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("killed.sqlite")
        let clock = ManualClock(StoreHarness.start)
        let cipher = try TokenCipher(secret: StoreHarness.secret, random: SystemRandom())
        _ = try SQLiteDatabase(path: path)

        let writer = try PythonProcess(
            script: Self.writer, arguments: [path, "\(StoreHarness.start.timeIntervalSince1970 + 3600)"],
            stdin: .pipe)
        #expect(try await writer.nextLine() == "committed")
        #expect(try await writer.nextLine() == "pending")
        writer.killHard()

        let store = SQLiteAccountStore(database: try SQLiteDatabase(path: path), cipher: cipher, clock: clock)
        #expect(try await store.takePendingProfile(key: "committed")?.firstName == "Grace")
        #expect(try await store.takePendingProfile(key: "uncommitted") == nil)
        // The killed writer's lock is gone: writing works at once.
        try await store.putPendingProfile(
            PendingProfile(
                key: "after", provider: "apple", firstName: "B", lastName: nil, expiresAt: StoreHarness.start + 60))
    }
}
