public import AuthFlowHTTP
public import AuthFlowStores
import Foundation
import Synchronization

/// One SQLite database file, shared by the stores of ``SQLiteStores``.
///
/// Each instance owns one connection. Operations run one at a time behind a mutex, always on a thread that may
/// block (`BlockingThreads.run`: the calling thread when it is an HTTP handler thread, otherwise its own pool's),
/// so a statement waiting for a lock never blocks Swift's cooperative threads or libmicrohttpd's polling thread.
/// Several instances, in one process or several, may open the same file: SQLite's locking and the busy timeout
/// serialize their writes.
///
/// Opening configures the connection and brings the schema up to date:
/// - `journal_mode = WAL`: readers never block the writer and a crash never loses a committed transaction;
/// - every commit synced to disk before the operation returns, so a committed user, link, token, session
///   deletion or applied notification id also survives a power loss. The connection runs with
///   `synchronous = NORMAL` and an operation that changed rows ends with one sync of the write-ahead log
///   (what `FULL` does at each commit), because two writes are exceptions (`performUnsynced`: they
///   reach the disk with the next sync, which covers the whole log): a new session
///   (`withUnsyncedWriteTransaction`), whose loss signs its browser out and brings nothing back, and a spent
///   state (`SQLiteStores.flows`), which the same sign-in's account write syncs moments later. Switching
///   `PRAGMA synchronous` per operation instead would expire every statement the connection keeps, and SQLite
///   would compile each again after every switch; a second connection for the exceptions would make each
///   connection drop its page cache whenever the other wrote.
/// - `foreign_keys = ON`, a busy timeout, and SQLite's defensive mode;
/// - migrations versioned in code (`PRAGMA user_version`), applied in one transaction. A database written by
///   a newer AuthFlow is refused with `unsupportedSchema` and left untouched.
public final class SQLiteDatabase: Sendable {
    /// The schema version this code writes and reads.
    package static var currentSchemaVersion: Int { SQLiteSchema.currentVersion }

    /// The database file's path.
    package let path: String

    private let connection: Mutex<SQLiteConnection>
    private let blockingThreads: BlockingThreads

    /// Opens (creating when missing) the database file at `path` and migrates it to the current schema. A file
    /// this call creates is readable and writable by its owner only (0600), and so are its `-wal` and `-shm`
    /// files; an existing file keeps its mode.
    ///
    /// - Parameters:
    ///   - path: the file; its directory must exist.
    ///   - busyTimeout: seconds to wait for another connection's lock before failing with `busy`.
    /// - Throws: `StoreError` with `unsupportedSchema` (a newer or foreign database; nothing is written),
    ///   `corruptDatabase` (not a database, or damaged), `busy`, or `backendFailure` (cannot open, I/O).
    ///
    /// Operations run on a thread of the database's own, ended when it is released.
    public convenience init(path: String, busyTimeout: Double = 5) throws(StoreError) {
        try self.init(path: path, busyTimeout: busyTimeout, blockingThreads: nil)
    }

    /// ``init(path:busyTimeout:)`` whose operations run on `blockingThreads` (a server's, so that a handler's
    /// operation runs right on its thread); without them the database owns a pool of its own, shut down when it
    /// is released.
    package init(path: String, busyTimeout: Double = 5, blockingThreads: BlockingThreads?) throws(StoreError) {
        let opened = try SQLiteConnection(path: path, busyTimeout: busyTimeout)
        // Per-connection settings first: they write nothing, so a refused file stays untouched.
        try opened.execute("PRAGMA foreign_keys = ON", operation: "open")
        try opened.execute("PRAGMA synchronous = FULL", operation: "open")
        try SQLiteSchema.migrate(opened)
        let mode = try Self.enableWAL(opened, busyTimeout: busyTimeout)
        guard mode?.lowercased() == "wal" else {
            throw StoreError(
                .backendFailure,
                "expected journal mode wal, found \(mode ?? "none") (the file system may not support WAL)",
                operation: "open")
        }
        // From here on, the log is synced explicitly after each operation that changed rows (see `perform`).
        try opened.execute("PRAGMA synchronous = NORMAL", operation: "open")
        self.path = path
        connection = Mutex(opened)
        self.blockingThreads = blockingThreads ?? BlockingThreads(threadCount: 1, name: "authflow-sqlite")
    }

    /// Switches the file to WAL (once per file; later calls find it set). The switch needs the exclusive lock, and
    /// SQLite answers `busy` at once, without waiting in the busy handler, while another connection that opens the
    /// file at the same moment holds the write lock (waiting there could deadlock), so it is tried again until
    /// `busyTimeout` has passed.
    static func enableWAL(_ connection: SQLiteConnection, busyTimeout: Double) throws(StoreError) -> String? {
        let deadline = Date().addingTimeInterval(busyTimeout.isFinite ? max(0, busyTimeout) : 5)
        while true {
            do throws(StoreError) {
                return try connection.query("PRAGMA journal_mode = WAL", operation: "open").first?.text(0)
            } catch {
                guard error.code == .busy, Date() < deadline else { throw error }
                Thread.sleep(forTimeInterval: 0.005)
            }
        }
    }

    /// The database's schema version.
    ///
    /// - Throws: `StoreError` when the database cannot be read.
    package func schemaVersion() async throws(StoreError) -> Int {
        try await perform("schemaVersion") { connection throws(StoreError) in
            Int(try connection.query("PRAGMA user_version", operation: "schemaVersion").first?.integer(0) ?? 0)
        }
    }

    /// Runs `body` with the connection on a thread that may block (`BlockingThreads.run`): right on the calling
    /// thread when it is an HTTP handler thread, otherwise on one of them, to which the calling task moves. When
    /// `body` changed rows (committed, or an autocommit statement), the write-ahead log is synced before this
    /// returns, as `synchronous = FULL` would at the commit; a failed sync throws `backendFailure` (the change
    /// may then be visible though not on disk).
    ///
    /// On a handler thread this saves any hand-over; from libmicrohttpd's polling thread (a handler's first
    /// store operation) it costs one, where a queue of the database's own cost two (to the queue, then to a
    /// handler thread). The thread waits for the connection's mutex while another operation of this process
    /// runs, and for the busy timeout while another connection holds the write lock; it is a dedicated
    /// thread, so neither Swift's cooperative threads nor libmicrohttpd's polling thread wait.
    @discardableResult
    func perform<T: Sendable>(
        _ operation: String, _ body: @escaping @Sendable (SQLiteConnection) throws(StoreError) -> T
    ) async throws(StoreError) -> T {
        try await blockingThreads.storeOperation(operation) {
            Result { () throws(StoreError) -> T in
                try connection.withLock { connection throws(StoreError) in
                    let changes = connection.totalChanges
                    let result: T
                    do throws(StoreError) {
                        result = try body(connection)
                    } catch {
                        // Statements that committed before the failure are synced all the same.
                        if connection.totalChanges != changes { try? connection.syncLog(operation: operation) }
                        throw error
                    }
                    if connection.totalChanges != changes { try connection.syncLog(operation: operation) }
                    return result
                }
            }
        }
    }

    /// Runs `body` like ``perform(_:_:)`` without syncing the write-ahead log afterwards: its commits reach the
    /// log (a process crash keeps them, every connection sees them at once) and the disk with the next sync.
    /// Only writes whose loss after a power cut is harmless use it: a new session and a spent state.
    @discardableResult
    func performUnsynced<T: Sendable>(
        _ operation: String, _ body: @escaping @Sendable (SQLiteConnection) throws(StoreError) -> T
    ) async throws(StoreError) -> T {
        try await blockingThreads.storeOperation(operation) {
            Result { () throws(StoreError) -> T in
                try connection.withLock { connection throws(StoreError) in try body(connection) }
            }
        }
    }
}
