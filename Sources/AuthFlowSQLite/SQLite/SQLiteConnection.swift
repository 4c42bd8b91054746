import AuthFlowStores
internal import CSQLite
import Glibc

/// One open SQLite connection: owns the `sqlite3` handle and its prepared statements, and frees them in
/// `deinit`. Not thread-safe; ``SQLiteDatabase`` serializes every use behind a mutex.
///
/// Values only ever reach SQL as bound parameters. Every failure is translated once, in
/// ``error(_:operation:)``, into a ``StoreError`` carrying the operation and SQLite's message (which names
/// tables and columns, never bound values).
final class SQLiteConnection {
    private let handle: OpaquePointer
    private var statements: [String: OpaquePointer] = [:]

    /// Opens (creating when missing) the database file at `path`. A new file is created owner-only (0600)
    /// before SQLite opens it; SQLite gives its `-wal` and `-shm` files the database file's mode.
    init(path: String, busyTimeout: Double) throws(StoreError) {
        try Self.createOwnerOnly(path)
        var opened: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        let status = sqlite3_open_v2(path, &opened, flags, nil)
        guard status == SQLITE_OK, let opened else {
            let message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(status))
            sqlite3_close_v2(opened)
            throw Self.storeError(
                code: status, message: "cannot open the database file at \(path): \(message)", operation: "open")
        }
        handle = opened
        let milliseconds = busyTimeout.isFinite ? Int32(clamping: Int64(max(0, busyTimeout) * 1000)) : 5000
        sqlite3_busy_timeout(handle, milliseconds)
        // Refuse writes that could corrupt the file through SQL (writable_schema and the like).
        _ = af_sqlite3_db_config_flag(handle, SQLITE_DBCONFIG_DEFENSIVE, 1)
        _ = af_sqlite3_db_config_flag(handle, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0)
    }

    /// Creates `path` empty with mode 0600 unless it exists (an empty file is a valid new database). Special
    /// names (`:memory:`, `file:` URIs, the empty temporary name) are left to SQLite.
    static func createOwnerOnly(_ path: String) throws(StoreError) {
        guard !path.isEmpty, path != ":memory:", !path.hasPrefix("file:") else { return }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        if descriptor >= 0 {
            close(descriptor)
            return
        }
        let code = errno
        guard code == EEXIST else {
            throw StoreError(
                .backendFailure,
                "cannot open the database file at \(path): cannot create it (\(String(cString: strerror(code))))",
                operation: "open")
        }
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close_v2(handle)
    }

    /// Runs SQL text without parameters (schema, pragmas, transaction control).
    func execute(_ sql: String, operation: String) throws(StoreError) {
        var message: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &message)
        if status != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(message)
            throw Self.storeError(code: status, message: text, operation: operation)
        }
        sqlite3_free(message)
    }

    /// Runs one statement with bound parameters and returns its rows.
    @discardableResult
    func query(_ sql: String, _ parameters: [SQLiteValue] = [], operation: String) throws(StoreError) -> [SQLiteRow] {
        let statement = try prepared(sql, operation: operation)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        for (offset, value) in parameters.enumerated() {
            let status = bind(value, at: Int32(offset + 1), in: statement)
            guard status == SQLITE_OK else { throw error(status, operation: operation) }
        }
        var rows: [SQLiteRow] = []
        while true {
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE { return rows }
            guard status == SQLITE_ROW else { throw error(status, operation: operation) }
            let count = sqlite3_column_count(statement)
            var values: [SQLiteValue] = []
            values.reserveCapacity(Int(count))
            for column in 0..<count { values.append(read(column, of: statement)) }
            rows.append(SQLiteRow(values: values, operation: operation))
        }
    }

    /// Runs one statement with bound parameters and returns how many rows it changed.
    @discardableResult
    func run(_ sql: String, _ parameters: [SQLiteValue] = [], operation: String) throws(StoreError) -> Int {
        try query(sql, parameters, operation: operation)
        return Int(sqlite3_changes64(handle))
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it (or the commit) throws.
    ///
    /// `immediate` takes the write lock at `BEGIN`, so a read-then-write transaction never fails half-way
    /// because another connection wrote in between; the busy timeout covers waiting for the lock.
    func transaction<T>(
        immediate: Bool, operation: String, _ body: () throws(StoreError) -> T
    ) throws(StoreError) -> T {
        try run(immediate ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED", operation: operation)
        do throws(StoreError) {
            let result = try body()
            try run("COMMIT", operation: operation)
            return result
        } catch {
            if sqlite3_get_autocommit(handle) == 0 {
                _ = sqlite3_exec(handle, "ROLLBACK", nil, nil, nil)
            }
            throw error
        }
    }

    /// How many rows this connection's statements have inserted, updated or deleted since it opened.
    var totalChanges: Int64 { sqlite3_total_changes64(handle) }

    /// How many times ``syncLog(operation:)`` ran.
    private(set) var logSyncs = 0

    /// Syncs the write-ahead log to disk: every commit written to it so far, by this connection or another,
    /// survives a power loss once this returns.
    func syncLog(operation: String) throws(StoreError) {
        logSyncs += 1
        let status = af_sqlite3_sync_wal(handle)
        guard status == SQLITE_OK else {
            throw Self.storeError(
                code: status,
                message: "expected the write-ahead log synced to disk, found the sync failed: "
                    + String(cString: sqlite3_errstr(status)),
                operation: operation)
        }
    }

    /// How many times SQLite compiled this connection's kept statements again since they were prepared: it
    /// does so when something expired them (a schema change, or switching `PRAGMA synchronous`).
    var recompilations: Int {
        statements.values.reduce(0) { $0 + Int(sqlite3_stmt_status($1, SQLITE_STMTSTATUS_REPREPARE, 0)) }
    }

    private func prepared(_ sql: String, operation: String) throws(StoreError) -> OpaquePointer {
        if let statement = statements[sql] { return statement }
        var statement: OpaquePointer?
        var tail: UnsafePointer<CChar>?
        let status = sql.withCString { text in
            sqlite3_prepare_v3(handle, text, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, &tail)
        }
        guard status == SQLITE_OK, let statement else { throw error(status, operation: operation) }
        statements[sql] = statement
        return statement
    }

    private func bind(_ value: SQLiteValue, at index: Int32, in statement: OpaquePointer) -> Int32 {
        switch value {
        case .null:
            return sqlite3_bind_null(statement, index)
        case .integer(let number):
            return sqlite3_bind_int64(statement, index, number)
        case .real(let number):
            return sqlite3_bind_double(statement, index, number)
        case .text(let text):
            // An empty buffer may have no base address, and SQLite binds NULL for a NULL pointer.
            var copy = text
            return copy.withUTF8 { bytes in
                guard let base = bytes.baseAddress, bytes.count > 0 else {
                    return sqlite3_bind_text(statement, index, "", 0, nil)
                }
                guard let length = Int32(exactly: bytes.count) else { return SQLITE_TOOBIG }
                return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                    af_sqlite3_bind_text_transient(statement, index, $0, length)
                }
            }
        case .blob(let bytes):
            guard !bytes.isEmpty else { return sqlite3_bind_zeroblob(statement, index, 0) }
            guard let length = Int32(exactly: bytes.count) else { return SQLITE_TOOBIG }
            return bytes.withUnsafeBytes { af_sqlite3_bind_blob_transient(statement, index, $0.baseAddress, length) }
        }
    }

    private func read(_ column: Int32, of statement: OpaquePointer) -> SQLiteValue {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER:
            return .integer(sqlite3_column_int64(statement, column))
        case SQLITE_FLOAT:
            return .real(sqlite3_column_double(statement, column))
        case SQLITE_TEXT:
            let count = Int(sqlite3_column_bytes(statement, column))
            guard let base = sqlite3_column_text(statement, column), count > 0 else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: base, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(statement, column))
            guard let base = sqlite3_column_blob(statement, column), count > 0 else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: base, count: count)))
        default:
            return .null
        }
    }

    /// The connection's last error as a ``StoreError``.
    private func error(_ status: Int32, operation: String) -> StoreError {
        Self.storeError(code: status, message: String(cString: sqlite3_errmsg(handle)), operation: operation)
    }

    /// Maps an SQLite result code onto a ``StoreError`` code; the one place C errors are translated.
    private static func storeError(code status: Int32, message: String, operation: String) -> StoreError {
        let primary = status & 0xff
        let code: StoreError.Code
        switch primary {
        case SQLITE_NOTADB, SQLITE_CORRUPT: code = .corruptDatabase
        case SQLITE_BUSY, SQLITE_LOCKED: code = .busy
        case SQLITE_TOOBIG: code = .invalidValue
        default: code = .backendFailure
        }
        let name = String(cString: sqlite3_errstr(status))
        return StoreError(code, "SQLite failed (\(name), code \(status)): \(message)", operation: operation)
    }
}
