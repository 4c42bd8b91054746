public import AuthFlowHTTP
public import AuthFlowStores
import Dispatch
import Synchronization

/// One PostgreSQL database, shared by the stores of ``PostgresStores`` and by every server instance pointed at
/// it.
///
/// A small pool of libpq connections: an operation borrows one connection for its whole run (a connection is
/// used by one thread at a time) on a thread that may block (`BlockingThreads.run`: an HTTP handler thread),
/// so a statement waiting on the network never blocks Swift's cooperative threads or libmicrohttpd's polling
/// thread.
///
/// Failure and recovery: every operation has a client-side deadline (`operationTimeout`, 5 s by default,
/// `store.operation_timeout`) covering the wait for a pooled connection, connecting and every statement:
/// libpq is driven asynchronously and its socket polled against the deadline, so a server that stops
/// answering (stopped, or behind a proxy whose backend stalls, where the kernel still accepts connections)
/// fails the operation at its deadline with a typed `backendFailure` (or `busy`), never a hang. The statement is
/// then cancelled and its connection dropped. At most `maximumPending` operations run or wait at once, and
/// once an operation has missed its deadline, until one succeeds again, no more than the pool's size; more
/// fail at once with `busy`, so a stalled database holds only a few of the threads other routes need. The
/// server's `statement_timeout` and `lock_timeout` are set to the same deadline. A connection found broken
/// is dropped and the next operation opens a new one, so the store recovers by itself when the server is
/// back. When a pooled connection fails on its first statement because the server restarted since its last
/// use, that operation is retried once on a new connection (never after a missed deadline).
///
/// Opening brings the schema up to date under an advisory lock, so instances starting together migrate once;
/// a database written by a newer AuthFlow is refused with `unsupportedSchema` and left untouched.
public final class PostgresDatabase: Sendable {
    /// The schema version this code writes and reads.
    package static var currentSchemaVersion: Int { PostgresSchema.currentVersion }

    private struct Pool {
        var idle: [PostgresConnection] = []
        var pending = 0
        /// An operation missed its deadline and none has succeeded since.
        var stalled = false
    }

    private let conninfo: String
    private let operationTimeout: Double
    private let maximumPending: Int
    private let size: Int
    private let pool = Mutex(Pool())
    private let slots: DispatchSemaphore
    private let cancellation = PostgresCancellation()
    private let blockingThreads: BlockingThreads

    /// Connects to the database `url` (a libpq URL such as `postgresql://user@host/db?sslmode=require`, or a
    /// `key=value` conninfo; every libpq parameter is honoured) and migrates it to the current schema.
    ///
    /// - Parameters:
    ///   - url: the libpq URL or conninfo.
    ///   - maximumConnections: the pool's size (at least 1).
    ///   - operationTimeout: seconds any one operation (waiting for a connection, connecting, its statements)
    ///     may take before failing (default 5, as `store.operation_timeout`); also the server's `statement_timeout`
    ///     and `lock_timeout`.
    ///   - maximumPending: how many operations may run or wait for a connection at once (default 64, as many
    ///     as the handler threads; the pool's size while the server misses deadlines); more fail at once with
    ///     `busy`.
    /// - Throws: `StoreError` `backendFailure` (cannot connect), `invalidValue` (a URL libpq cannot parse),
    ///   `unsupportedSchema`, `busy`. Messages never quote the URL.
    ///
    /// Operations run on a thread of the database's own, ended when it is released.
    public convenience init(
        url: String, maximumConnections: Int = 4, operationTimeout: Double = 5, maximumPending: Int? = nil
    ) throws(StoreError) {
        try self.init(
            url: url, maximumConnections: maximumConnections, operationTimeout: operationTimeout,
            maximumPending: maximumPending, blockingThreads: nil)
    }

    /// ``init(url:maximumConnections:operationTimeout:maximumPending:)`` whose operations run on
    /// `blockingThreads` (a server's, so that a handler's operation runs right on its thread); without them the
    /// database owns a pool of its own, shut down when it is released.
    package init(
        url: String, maximumConnections: Int = 4, operationTimeout: Double = 5,
        maximumPending: Int? = nil, blockingThreads: BlockingThreads?
    ) throws(StoreError) {
        conninfo = url
        self.blockingThreads = blockingThreads ?? BlockingThreads(threadCount: 1, name: "authflow-postgres")
        self.operationTimeout = operationTimeout.isFinite && operationTimeout > 0 ? operationTimeout : 5
        let size = max(1, maximumConnections)
        self.size = size
        self.maximumPending = max(size, maximumPending ?? 64)
        slots = DispatchSemaphore(value: size)
        // Migrating may wait for another instance's advisory lock: it gets a longer deadline.
        let connection = try PostgresConnection(
            conninfo: url, timeout: max(30, self.operationTimeout), cancellation: cancellation)
        try PostgresSchema.migrate(connection)
        pool.withLock { $0.idle.append(connection) }
    }

    /// Connects to `url` once, without migrating or writing anything, and returns the AuthFlow schema version
    /// found there (`0` for a database AuthFlow has not used yet): what `authflow check --connect` reports.
    ///
    /// - Throws: `StoreError` `backendFailure` when the server cannot be reached or refuses the login.
    package static func probe(url: String) throws(StoreError) -> Int {
        let connection = try PostgresConnection(conninfo: url, timeout: 10)
        let present = try connection.query(
            "SELECT to_regclass('authflow_schema') IS NOT NULL", operation: "probe"
        ).first?.bool(0)
        guard present == true else { return 0 }
        return Int(try PostgresSchema.version(connection, operation: "probe") ?? 0)
    }

    /// The database's schema version.
    ///
    /// - Throws: `StoreError` when the database cannot be read.
    package func schemaVersion() async throws(StoreError) -> Int {
        try await perform("schemaVersion") { connection throws(StoreError) in
            Int(try PostgresSchema.version(connection, operation: "schemaVersion") ?? 0)
        }
    }

    /// Checks that the server answers and holds the schema.
    ///
    /// - Throws: `StoreError` `backendFailure` when it does not.
    package func checkHealth(operation: String = "checkHealth") async throws(StoreError) {
        _ = try await perform(operation) { connection throws(StoreError) in
            try PostgresSchema.version(connection, operation: operation)
        }
    }

    /// Runs `body` with a borrowed connection on a thread that may block (`BlockingThreads.run`): an HTTP
    /// handler thread runs it right there, any other thread hands the calling task to one.
    @discardableResult
    func perform<T: Sendable>(
        _ operation: String, _ body: @escaping @Sendable (PostgresConnection) throws(StoreError) -> T
    ) async throws(StoreError) -> T {
        try await blockingThreads.storeOperation(operation) { self.run(operation, body) }
    }

    private func run<T>(
        _ operation: String, _ body: (PostgresConnection) throws(StoreError) -> T
    ) -> Result<T, StoreError> {
        let deadline = ContinuousClock.now.advanced(by: .milliseconds(Int64(operationTimeout * 1000)))
        let limit = pool.withLock { pool -> Int? in
            let limit = pool.stalled ? size : maximumPending
            guard pool.pending < limit else { return limit }
            pool.pending += 1
            return nil
        }
        if let limit {
            return .failure(
                StoreError(
                    .busy,
                    "expected fewer than \(limit) PostgreSQL operations under way, found that many (the server "
                        + "may be slow or stalled)", operation: operation))
        }
        defer { pool.withLock { $0.pending -= 1 } }
        guard slots.wait(timeout: .now() + .milliseconds(Int(max(0, operationTimeout) * 1000))) == .success else {
            pool.withLock { $0.stalled = true }
            return .failure(
                StoreError(
                    .busy, "expected a free PostgreSQL connection within \(operationTimeout) s, found the pool in use",
                    operation: operation))
        }
        defer { slots.signal() }
        let pooled = pool.withLock { $0.idle.popLast() }
        var outcome = attempt(pooled, deadline: deadline, operation: operation, body)
        if case .failure = outcome.result, let pooled, !pooled.isOpen, !pooled.timedOut, pooled.statementsRun == 1,
            ContinuousClock.now < deadline
        {
            // The server closed this idle connection (a restart): the statement never ran; retry once.
            outcome = attempt(nil, deadline: deadline, operation: operation, body)
        }
        let missedDeadline = outcome.connection?.timedOut ?? (ContinuousClock.now >= deadline)
        pool.withLock { pool in
            if let connection = outcome.connection, connection.isOpen { pool.idle.append(connection) }
            if case .success = outcome.result { pool.stalled = false } else if missedDeadline { pool.stalled = true }
        }
        return outcome.result
    }

    private func attempt<T>(
        _ pooled: PostgresConnection?, deadline: ContinuousClock.Instant, operation: String,
        _ body: (PostgresConnection) throws(StoreError) -> T
    ) -> (connection: PostgresConnection?, result: Result<T, StoreError>) {
        let connection: PostgresConnection
        if let pooled {
            connection = pooled
        } else {
            do {
                connection = try PostgresConnection(
                    conninfo: conninfo, timeout: operationTimeout, deadline: deadline, cancellation: cancellation)
            } catch {
                var error = error
                error.operation = operation
                return (nil, .failure(error))
            }
        }
        connection.statementsRun = 0
        connection.deadline = deadline
        return (connection, Result { () throws(StoreError) -> T in try body(connection) })
    }
}
