import AuthFlow
internal import CPostgres
import Foundation

/// One libpq connection: owns the `PGconn` and frees it in `deinit`. Not thread-safe (hence `@unchecked`
/// `Sendable`): ``PostgresDatabase`` lends each connection to one operation at a time.
///
/// Values only ever reach SQL as `PQexecParams` parameters (text format). Every failure is translated once,
/// in `failure(_:operation:)`, into a `StoreError` carrying the operation and the server's primary
/// message (which names constraints and columns, never bound values).
final class PostgresConnection: @unchecked Sendable {
    private let handle: OpaquePointer
    /// Statements run since the connection was lent out (a failure of the first one on a reused connection is
    /// retried on a fresh connection: see ``PostgresDatabase``).
    var statementsRun = 0

    /// Opens a connection from a libpq URL or `key=value` conninfo.
    ///
    /// Defaults that the conninfo may override: a 5-second `connect_timeout`, TCP keepalives and a TCP user
    /// timeout (so a vanished server is noticed rather than waited for), `application_name=authflow`. Then the
    /// session's `statement_timeout` and `lock_timeout` are set, so no statement waits without bound.
    init(conninfo: String, statementTimeout: Double) throws(StoreError) {
        let keywords = [
            "connect_timeout", "keepalives", "keepalives_idle", "keepalives_interval", "keepalives_count",
            "tcp_user_timeout", "application_name", "dbname",
        ]
        let values = ["5", "1", "5", "2", "3", "10000", "authflow", conninfo]
        let connection = Self.withCStrings(keywords) { keywordPointers in
            Self.withCStrings(values) { valuePointers in
                PQconnectdbParams(keywordPointers, valuePointers, 1)
            }
        }
        guard let connection else {
            throw StoreError(
                .backendFailure, "expected libpq to allocate a connection, found none", operation: "connect")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = Self.firstLine(PQerrorMessage(connection))
            PQfinish(connection)
            throw StoreError(
                .backendFailure, "expected to connect to PostgreSQL, found: \(message)", operation: "connect")
        }
        handle = connection
        af_pq_silence_notices(handle)
        let milliseconds = String(Int64(max(0.001, statementTimeout.isFinite ? statementTimeout : 10) * 1000))
        try query(
            "SELECT set_config('statement_timeout', $1, false), set_config('lock_timeout', $1, false)",
            [.text(milliseconds)], operation: "connect")
    }

    deinit { PQfinish(handle) }

    /// Whether libpq still considers the connection usable.
    var isOpen: Bool { PQstatus(handle) == CONNECTION_OK }

    /// Runs one statement with bound parameters and returns its rows.
    @discardableResult
    func query(_ sql: String, _ parameters: [PostgresValue] = [], operation: String) throws(StoreError)
        -> [PostgresRow]
    {
        let result = try execute(sql, parameters, operation: operation)
        defer { PQclear(result) }
        let rowCount = PQntuples(result)
        let columnCount = PQnfields(result)
        var rows: [PostgresRow] = []
        rows.reserveCapacity(Int(rowCount))
        for row in 0..<rowCount {
            var values: [String?] = []
            values.reserveCapacity(Int(columnCount))
            for column in 0..<columnCount {
                if PQgetisnull(result, row, column) != 0 {
                    values.append(nil)
                } else {
                    let length = Int(PQgetlength(result, row, column))
                    let pointer = PQgetvalue(result, row, column)
                    values.append(
                        pointer.map { base in
                            base.withMemoryRebound(to: UInt8.self, capacity: length) {
                                String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
                            }
                        } ?? "")
                }
            }
            rows.append(PostgresRow(values: values, operation: operation))
        }
        return rows
    }

    /// Runs one statement with bound parameters and returns how many rows it changed.
    @discardableResult
    func run(_ sql: String, _ parameters: [PostgresValue] = [], operation: String) throws(StoreError) -> Int {
        let result = try execute(sql, parameters, operation: operation)
        defer { PQclear(result) }
        return PQcmdTuples(result).flatMap { Int(String(cString: $0)) } ?? 0
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it (or the commit) throws.
    func transaction<T>(operation: String, _ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        try run("BEGIN", operation: operation)
        do throws(StoreError) {
            let result = try body()
            try run("COMMIT", operation: operation)
            return result
        } catch {
            if isOpen, PQtransactionStatus(handle) != PQTRANS_IDLE {
                if let rollback = PQexec(handle, "ROLLBACK") { PQclear(rollback) }
            }
            throw error
        }
    }

    private func execute(_ sql: String, _ parameters: [PostgresValue], operation: String) throws(StoreError)
        -> OpaquePointer
    {
        statementsRun += 1
        let texts = parameters.map(\.textForm)
        for (index, text) in texts.enumerated() where text?.utf8.contains(0) == true {
            throw StoreError(
                .invalidValue,
                "expected parameter \(index + 1) without NUL bytes (PostgreSQL text cannot hold them), "
                    + "found one", operation: operation)
        }
        let result = Self.withOptionalCStrings(texts) { pointers in
            PQexecParams(handle, sql, Int32(pointers.count), nil, pointers, nil, nil, 0)
        }
        guard let result else { throw failure(nil, operation: operation) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK:
            return result
        default:
            let error = failure(result, operation: operation)
            PQclear(result)
            throw error
        }
    }

    /// Maps a failed result (or a missing one) onto a `StoreError`; the one place libpq errors are translated.
    ///
    /// SQLSTATE classes: 08 (connection) and a closed connection → `backendFailure` naming the store as
    /// unavailable; 40 (serialization, deadlock), 55P03 (lock not available) and 57014 (statement timeout)
    /// → `busy`; 22 (data exception) → `invalidValue`; 23 (constraint) → `backendFailure` with the constraint
    /// named (callers that expect a conflict use `ON CONFLICT`, so this is unexpected).
    private func failure(_ result: OpaquePointer?, operation: String) -> StoreError {
        let state = result.flatMap { PQresultErrorField($0, Int32(UInt8(ascii: "C"))) }.map { String(cString: $0) }
        let primary =
            result.flatMap { PQresultErrorField($0, Int32(UInt8(ascii: "M"))) }.map { String(cString: $0) }
            ?? Self.firstLine(PQerrorMessage(handle))
        guard isOpen, let state else {
            return StoreError(
                .backendFailure, "expected PostgreSQL to answer, found the connection lost: \(primary)",
                operation: operation)
        }
        let code: StoreError.Code
        switch state {
        case "55P03", "57014": code = .busy
        case _ where state.hasPrefix("40"): code = .busy
        case _ where state.hasPrefix("22"): code = .invalidValue
        default: code = .backendFailure
        }
        if state.hasPrefix("57P") || state.hasPrefix("08") {
            return StoreError(
                .backendFailure, "expected PostgreSQL to answer, found it unavailable (SQLSTATE \(state)): \(primary)",
                operation: operation)
        }
        return StoreError(
            code, "PostgreSQL refused the statement (SQLSTATE \(state)): \(primary)", operation: operation)
    }

    private static func firstLine(_ message: UnsafePointer<CChar>?) -> String {
        guard let message else { return "no message" }
        let text = String(cString: message)
        return text.split(separator: "\n", omittingEmptySubsequences: true).first.map(String.init) ?? "no message"
    }

    private static func withCStrings<R>(_ strings: [String], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
        withOptionalCStrings(strings.map { Optional($0) }) { pointers in
            body(pointers + [nil])
        }
    }

    /// Calls `body` with NUL-terminated copies of `strings` (`nil` stays a null pointer), valid for the call.
    private static func withOptionalCStrings<R>(_ strings: [String?], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
        let storage: [UnsafeMutablePointer<CChar>?] = strings.map { string in
            string.map { strdup($0) }
        }
        defer { for pointer in storage { free(pointer) } }
        return body(storage.map { $0.map { UnsafePointer($0) } })
    }
}
