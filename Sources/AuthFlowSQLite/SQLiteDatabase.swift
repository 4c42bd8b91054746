public import AuthFlow
import Foundation
import Synchronization

/// One SQLite database file, shared by ``SQLiteAccountStore``, ``SQLiteSessionStore`` and ``SQLiteFlowStore``.
///
/// Each instance owns two connections to the file: one whose commits are synced (`synchronous = FULL`) and
/// one whose commits are not (`NORMAL`, for the two writes below). Each keeps its setting for its whole life:
/// switching `PRAGMA synchronous` on one connection expires every statement it has prepared, so each
/// statement would be compiled again after every switch. Operations, on either connection, run one at a time
/// behind one mutex, always on a thread that may block (`BlockingThreads.run`: the calling thread when it is an
/// HTTP handler thread, otherwise one of those), so a statement waiting for a lock never blocks Swift's
/// cooperative threads or libmicrohttpd's polling thread, and the two connections never wait for each other.
/// Several instances, in one process or several, may open the same file: SQLite's locking and the busy
/// timeout serialize their writes.
///
/// Opening configures the connection and brings the schema up to date:
/// - `journal_mode = WAL`: readers never block the writer and a crash never loses a committed transaction;
/// - `synchronous = FULL`: every commit is synced to disk before it returns, so a committed user, link, token,
///   session deletion or applied notification id also survives a power loss. Two writes are exceptions, made
///   on the second connection (`NORMAL`, reaching the disk with the next synced commit, since SQLite syncs the
///   whole WAL file): a new session (`withUnsyncedWriteTransaction`), whose loss signs its browser out and
///   brings nothing back, and a spent state (``SQLiteFlowStore``), which the same sign-in's account write
///   syncs moments later;
/// - `foreign_keys = ON`, a busy timeout, and SQLite's defensive mode;
/// - migrations versioned in code (`PRAGMA user_version`), applied in one transaction. A database written by
///   a newer AuthFlow is refused with `unsupportedSchema` and left untouched.
public final class SQLiteDatabase: Sendable {
    /// The schema version this code writes and reads.
    public static var currentSchemaVersion: Int { SQLiteSchema.currentVersion }

    /// The database file's path.
    public let path: String

    /// The two connections, used one at a time.
    private let connections: Mutex<Connections>

    /// A connection whose commits are synced, and one whose commits are not.
    struct Connections {
        let synced: SQLiteConnection
        let unsynced: SQLiteConnection
    }

    /// Opens (creating when missing) the database file at `path` and migrates it to the current schema. A file
    /// this call creates is readable and writable by its owner only (0600), and so are its `-wal` and `-shm`
    /// files; an existing file keeps its mode.
    ///
    /// - Parameters:
    ///   - path: the file; its directory must exist.
    ///   - busyTimeout: seconds to wait for another connection's lock before failing with `busy`.
    /// - Throws: `StoreError` with `unsupportedSchema` (a newer or foreign database; nothing is written),
    ///   `corruptDatabase` (not a database, or damaged), `busy`, or `backendFailure` (cannot open, I/O).
    public init(path: String, busyTimeout: Double = 5) throws(StoreError) {
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
        // The second connection opens a file that is already migrated and in WAL mode (a persistent setting).
        let unsynced = try SQLiteConnection(path: path, busyTimeout: busyTimeout)
        try unsynced.execute("PRAGMA foreign_keys = ON", operation: "open")
        try unsynced.execute("PRAGMA synchronous = NORMAL", operation: "open")
        self.path = path
        connections = Mutex(Connections(synced: opened, unsynced: unsynced))
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
    public func schemaVersion() async throws(StoreError) -> Int {
        try await perform("schemaVersion") { connection throws(StoreError) in
            Int(try connection.query("PRAGMA user_version", operation: "schemaVersion").first?.integer(0) ?? 0)
        }
    }

    /// Runs `body` with the synced connection on a thread that may block (`BlockingThreads.run`): right on the
    /// calling thread when it is an HTTP handler thread, otherwise on one of them, to which the calling task moves.
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
        try await BlockingThreads.run { () throws(StoreError) -> T in
            try connections.withLock { connections throws(StoreError) in try body(connections.synced) }
        }
    }

    /// Runs `body` like ``perform(_:_:)``, with the connection whose commits are not synced
    /// (`synchronous = NORMAL`): a commit reaches the WAL file (a process crash keeps it, every connection sees
    /// it at once) and the disk with the next synced commit. Only writes whose loss after a power cut is harmless
    /// use it: a new session and a spent state.
    @discardableResult
    func performUnsynced<T: Sendable>(
        _ operation: String, _ body: @escaping @Sendable (SQLiteConnection) throws(StoreError) -> T
    ) async throws(StoreError) -> T {
        try await BlockingThreads.run { () throws(StoreError) -> T in
            try connections.withLock { connections throws(StoreError) in try body(connections.unsynced) }
        }
    }
}
