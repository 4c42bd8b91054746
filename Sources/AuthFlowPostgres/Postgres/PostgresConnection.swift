import AuthFlowStores
internal import CPostgres
import Foundation

/// One libpq connection: owns the `PGconn` and frees it in `deinit`. Not thread-safe (hence `@unchecked`
/// `Sendable`): ``PostgresDatabase`` lends each connection to one operation at a time.
///
/// Values only ever reach SQL as `PQsendQueryParams` parameters (text format). Every failure is translated once,
/// in `failure(_:operation:)`, into a `StoreError` carrying the operation and the server's primary
/// message (which names constraints and columns, never bound values).
final class PostgresConnection: @unchecked Sendable {
    private let handle: OpaquePointer
    /// Statements run since the connection was lent out (a failure of the first one on a reused connection is
    /// retried on a fresh connection: see ``PostgresDatabase``).
    var statementsRun = 0
    /// When the current operation must have finished; every wait on the server ends there.
    var deadline: ContinuousClock.Instant
    /// Seconds an operation may take (the client-side deadline and the server's `statement_timeout`).
    let timeout: Double
    /// Set when a statement missed its deadline: the statement was cancelled and the connection is not reused.
    private(set) var timedOut = false
    private let cancellation: PostgresCancellation?

    /// Opens a connection from a libpq URL or `key=value` conninfo, without waiting past `timeout` seconds.
    ///
    /// Defaults that the conninfo may override: a 5-second `connect_timeout`, TCP keepalives and a TCP user
    /// timeout (so a vanished server is noticed rather than waited for), `application_name=authflow`. Then the
    /// session's `statement_timeout` and `lock_timeout` are set. libpq is driven asynchronously (the socket is
    /// polled against the deadline), so a server that accepts connections but never answers (stopped, or
    /// behind a proxy whose backend stalls) fails the operation at its deadline instead of hanging it.
    /// `deadline` bounds connecting (by default `timeout` seconds from now).
    init(
        conninfo: String, timeout: Double, deadline: ContinuousClock.Instant? = nil,
        cancellation: PostgresCancellation? = nil
    ) throws(StoreError) {
        let seconds = timeout.isFinite && timeout > 0 ? timeout : 5
        self.timeout = seconds
        self.cancellation = cancellation
        let deadline = deadline ?? ContinuousClock.now.advanced(by: .milliseconds(Int64(seconds * 1000)))
        self.deadline = deadline
        let redaction = try PostgresConninfoRedaction(conninfo)
        let keywords = [
            "connect_timeout", "keepalives", "keepalives_idle", "keepalives_interval", "keepalives_count",
            "tcp_user_timeout", "application_name", "dbname",
        ]
        let values = ["5", "1", "5", "2", "3", "10000", "authflow", conninfo]
        let connection = Self.withCStrings(keywords) { keywordPointers in
            Self.withCStrings(values) { valuePointers in
                PQconnectStartParams(keywordPointers, valuePointers, 1)
            }
        }
        guard let connection else {
            throw StoreError(
                .backendFailure, "expected libpq to allocate a connection, found none", operation: "connect")
        }
        var polling = PGRES_POLLING_WRITING
        while PQstatus(connection) != CONNECTION_BAD, polling != PGRES_POLLING_OK, polling != PGRES_POLLING_FAILED {
            let events = polling == PGRES_POLLING_READING ? Int16(POLLIN) : Int16(POLLOUT)
            guard Self.wait(connection, events: events, until: deadline) else {
                PQfinish(connection)
                throw StoreError(
                    .backendFailure,
                    "expected PostgreSQL to accept the connection in time, found no answer",
                    operation: "connect")
            }
            polling = PQconnectPoll(connection)
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = redaction.redact(Self.firstLine(PQerrorMessage(connection)))
            PQfinish(connection)
            throw StoreError(
                .backendFailure, "expected to connect to PostgreSQL, found: \(message)", operation: "connect")
        }
        handle = connection
        af_pq_silence_notices(handle)
        _ = PQsetnonblocking(handle, 1)
        let milliseconds = String(Int64(max(0.001, seconds) * 1000))
        try query(
            "SELECT set_config('statement_timeout', $1, false), set_config('lock_timeout', $1, false)",
            [.text(milliseconds)], operation: "connect")
    }

    deinit { PQfinish(handle) }

    /// Whether the connection is still usable: libpq considers it open and no statement missed its deadline.
    var isOpen: Bool { !timedOut && PQstatus(handle) == CONNECTION_OK }

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
                _ = try? run("ROLLBACK", operation: operation)
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
        guard !timedOut else { throw missedDeadline(operation) }
        let sent = Self.withOptionalCStrings(texts) { pointers in
            PQsendQueryParams(handle, sql, Int32(pointers.count), nil, pointers, nil, nil, 0)
        }
        guard sent == 1 else { throw failure(nil, operation: operation) }
        var kept: OpaquePointer?
        do throws(StoreError) {
            // Send what libpq buffered, then read until every result is in; each wait ends at the deadline.
            while true {
                let flushed = PQflush(handle)
                if flushed == 0 { break }
                guard flushed > 0 else { throw failure(nil, operation: operation) }
                try waitForSocket(Int16(POLLIN | POLLOUT), operation: operation)
                guard PQconsumeInput(handle) == 1 else { throw failure(nil, operation: operation) }
            }
            while true {
                while PQisBusy(handle) != 0 {
                    try waitForSocket(Int16(POLLIN), operation: operation)
                    guard PQconsumeInput(handle) == 1 else { throw failure(nil, operation: operation) }
                }
                guard let next = PQgetResult(handle) else { break }
                // The first error wins; otherwise the first result (one statement gives one result).
                if let current = kept, Self.succeeded(current), !Self.succeeded(next) {
                    PQclear(current)
                    kept = next
                } else if kept == nil {
                    kept = next
                } else {
                    PQclear(next)
                }
            }
        } catch {
            if let kept { PQclear(kept) }
            throw error
        }
        guard let result = kept else { throw failure(nil, operation: operation) }
        guard Self.succeeded(result) else {
            let error = failure(result, operation: operation)
            PQclear(result)
            throw error
        }
        return result
    }

    private static func succeeded(_ result: OpaquePointer) -> Bool {
        let status = PQresultStatus(result)
        return status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK
    }

    /// Waits until the socket is ready for `events`; at the deadline, asks the server to cancel the statement
    /// (on a thread of its own: libpq's cancel request itself waits for the server) and gives the connection up.
    private func waitForSocket(_ events: Int16, operation: String) throws(StoreError) {
        guard Self.wait(handle, events: events, until: deadline) else {
            timedOut = true
            if let cancellation, let cancel = PQgetCancel(handle) { cancellation.cancel(cancel) }
            throw missedDeadline(operation)
        }
    }

    private func missedDeadline(_ operation: String) -> StoreError {
        StoreError(
            .backendFailure, "expected PostgreSQL to answer within \(timeout) s, found no answer (statement cancelled)",
            operation: operation)
    }

    /// Polls `connection`'s socket for `events` until `deadline`; `false` when the deadline passed first.
    private static func wait(_ connection: OpaquePointer, events: Int16, until deadline: ContinuousClock.Instant)
        -> Bool
    {
        let socket = PQsocket(connection)
        guard socket >= 0 else { return true }  // no socket: libpq reports the failure itself
        while true {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { return false }
            let (seconds, attoseconds) = remaining.components
            let milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
            var descriptor = pollfd(fd: socket, events: events, revents: 0)
            let status = poll(&descriptor, 1, milliseconds)
            if status > 0 { return true }
            if status < 0, errno != EINTR { return true }  // libpq reports the socket's failure
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
