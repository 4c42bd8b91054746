public import AuthFlow
import Dispatch
import Synchronization

/// One PostgreSQL database, shared by ``PostgresAccountStore``, ``PostgresSessionStore``,
/// ``PostgresFlowStore`` and ``PostgresRateLimitStore``, and by every server instance pointed at it.
///
/// A small pool of libpq connections: an operation borrows one connection for its whole run (a connection is
/// used by one thread at a time) on a thread that may block (`BlockingThreads.run`: an HTTP handler thread),
/// so a statement waiting on the network never blocks Swift's cooperative threads or libmicrohttpd's polling
/// thread. At most `maximumConnections` are open; an operation waits at most
/// `acquireTimeout` seconds for one, then fails with `busy`.
///
/// Failure and recovery: connecting times out after `connect_timeout` (5 s unless the URL says otherwise) and
/// every statement after `statementTimeout`, so a dead server gives a typed `backendFailure` (or `busy`),
/// never a hang. A connection found broken is dropped and the next operation opens a new one, so the store
/// recovers by itself when the server is back. When a pooled connection fails on its first statement because
/// the server restarted since its last use, that operation is retried once on a new connection.
///
/// Opening brings the schema up to date under an advisory lock, so instances starting together migrate once;
/// a database written by a newer AuthFlow is refused with `unsupportedSchema` and left untouched.
public final class PostgresDatabase: Sendable {
    /// The schema version this code writes and reads.
    public static var currentSchemaVersion: Int { PostgresSchema.currentVersion }

    private struct Pool {
        var idle: [PostgresConnection] = []
    }

    private let conninfo: String
    private let statementTimeout: Double
    private let acquireTimeout: Double
    private let pool = Mutex(Pool())
    private let slots: DispatchSemaphore

    /// Connects to the database `url` (a libpq URL such as `postgresql://user@host/db?sslmode=require`, or a
    /// `key=value` conninfo; every libpq parameter is honoured) and migrates it to the current schema.
    ///
    /// - Parameters:
    ///   - url: the libpq URL or conninfo.
    ///   - maximumConnections: the pool's size (at least 1).
    ///   - statementTimeout: seconds any one statement may run (and wait for a lock) before failing with `busy`.
    ///   - acquireTimeout: seconds an operation waits for a free connection before failing with `busy`.
    /// - Throws: `StoreError` `backendFailure` (cannot connect), `unsupportedSchema`, `busy`.
    public init(
        url: String, maximumConnections: Int = 4, statementTimeout: Double = 10, acquireTimeout: Double = 10
    ) throws(StoreError) {
        conninfo = url
        self.statementTimeout = statementTimeout
        self.acquireTimeout = acquireTimeout
        slots = DispatchSemaphore(value: max(1, maximumConnections))
        let connection = try PostgresConnection(conninfo: url, statementTimeout: statementTimeout)
        try PostgresSchema.migrate(connection)
        pool.withLock { $0.idle.append(connection) }
    }

    /// Connects to `url` once, without migrating or writing anything, and returns the AuthFlow schema version
    /// found there (`0` for a database AuthFlow has not used yet): what `authflow check --connect` reports.
    ///
    /// - Throws: `StoreError` `backendFailure` when the server cannot be reached or refuses the login.
    public static func probe(url: String) throws(StoreError) -> Int {
        let connection = try PostgresConnection(conninfo: url, statementTimeout: 10)
        let present = try connection.query(
            "SELECT to_regclass('authflow_schema') IS NOT NULL", operation: "probe"
        ).first?.bool(0)
        guard present == true else { return 0 }
        return Int(try PostgresSchema.version(connection, operation: "probe") ?? 0)
    }

    /// The database's schema version.
    ///
    /// - Throws: `StoreError` when the database cannot be read.
    public func schemaVersion() async throws(StoreError) -> Int {
        try await perform("schemaVersion") { connection throws(StoreError) in
            Int(try PostgresSchema.version(connection, operation: "schemaVersion") ?? 0)
        }
    }

    /// Checks that the server answers and holds the schema.
    ///
    /// - Throws: `StoreError` `backendFailure` when it does not.
    public func checkHealth(operation: String = "checkHealth") async throws(StoreError) {
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
        try await BlockingThreads.run { () throws(StoreError) -> T in try self.run(operation, body).get() }
    }

    private func run<T>(
        _ operation: String, _ body: (PostgresConnection) throws(StoreError) -> T
    ) -> Result<T, StoreError> {
        guard slots.wait(timeout: .now() + .milliseconds(Int(max(0, acquireTimeout) * 1000))) == .success else {
            return .failure(
                StoreError(
                    .busy, "expected a free PostgreSQL connection within \(acquireTimeout) s, found the pool in use",
                    operation: operation))
        }
        defer { slots.signal() }
        let pooled = pool.withLock { $0.idle.popLast() }
        var outcome = attempt(pooled, operation: operation, body)
        if case .failure = outcome.result, let pooled, !pooled.isOpen, pooled.statementsRun == 1 {
            // The server closed this idle connection (a restart): the statement never ran; retry once.
            outcome = attempt(nil, operation: operation, body)
        }
        if let connection = outcome.connection, connection.isOpen {
            pool.withLock { $0.idle.append(connection) }
        }
        return outcome.result
    }

    private func attempt<T>(
        _ pooled: PostgresConnection?, operation: String, _ body: (PostgresConnection) throws(StoreError) -> T
    ) -> (connection: PostgresConnection?, result: Result<T, StoreError>) {
        let connection: PostgresConnection
        if let pooled {
            connection = pooled
        } else {
            do {
                connection = try PostgresConnection(conninfo: conninfo, statementTimeout: statementTimeout)
            } catch {
                var error = error
                error.operation = operation
                return (nil, .failure(error))
            }
        }
        connection.statementsRun = 0
        return (connection, Result { () throws(StoreError) -> T in try body(connection) })
    }
}
