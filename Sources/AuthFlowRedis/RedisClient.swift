public import AuthFlowHTTP
import AuthFlowJOSE
public import AuthFlowStores
import Dispatch
import Synchronization

/// A small pool of Redis connections shared by the stores of ``RedisStores``, with every key under one prefix.
///
/// An operation borrows one connection for its run on a thread that may block (`BlockingThreads.run`: an HTTP
/// handler thread; a connection is used by one thread at a time; blocking I/O never runs on Swift's
/// cooperative threads or libmicrohttpd's polling thread). Connecting and every command time out (socket
/// timeouts: a server that accepts connections but never answers, stopped or behind a stalled proxy, fails
/// the command at its timeout), so a dead server gives a typed `backendFailure`, never a hang. The wait for a
/// pooled connection is bounded by the command timeout, and at most `maximumPending` operations run or wait at
/// once (once a command or connection has failed, until one succeeds again, no more than the pool's size); more
/// fail at once with `busy`, so a stalled Redis holds only a few of the threads other routes need.
/// A connection that failed is dropped and the next operation connects again, so the client recovers by
/// itself when Redis is back.
public final class RedisClient: Sendable {
    /// The prefix of every key (`store.redis_prefix`, default `authflow:`).
    package let prefix: String

    private let endpoint: RedisEndpoint
    private let connectTimeout: Double
    private let commandTimeout: Double
    private let idle = Mutex<[RedisConnection]>([])
    /// Operations running or waiting, and whether the last one failed to reach the server.
    private let admission = Mutex((pending: 0, failing: false))
    private let maximumPending: Int
    private let size: Int
    private let slots: DispatchSemaphore
    private let acquireTimeout: Double
    private let blockingThreads: BlockingThreads

    /// Connects once to check the server answers.
    ///
    /// - Parameters:
    ///   - endpoint: where Redis listens and how to log in.
    ///   - prefix: prepended to every key.
    ///   - maximumConnections: the pool's size.
    ///   - connectTimeout: seconds to connect (default 5, as `store.operation_timeout`).
    ///   - commandTimeout: seconds any command may take, and an operation may wait for a pooled connection
    ///     (default 5, as `store.operation_timeout`).
    ///   - maximumPending: how many operations may run or wait for a connection at once (default 64, as many
    ///     as the handler threads; the pool's size while Redis fails to answer); more fail at once with `busy`.
    /// - Throws: `StoreError` `backendFailure` when Redis cannot be reached or refuses the login.
    ///
    /// Commands run on a thread of the client's own, ended when it is released.
    public convenience init(
        endpoint: RedisEndpoint, prefix: String = "authflow:", maximumConnections: Int = 4,
        connectTimeout: Double = 5, commandTimeout: Double = 5, maximumPending: Int? = nil
    ) throws(StoreError) {
        try self.init(
            endpoint: endpoint, prefix: prefix, maximumConnections: maximumConnections,
            connectTimeout: connectTimeout, commandTimeout: commandTimeout, maximumPending: maximumPending,
            blockingThreads: nil)
    }

    /// ``init(endpoint:prefix:maximumConnections:connectTimeout:commandTimeout:maximumPending:)`` whose commands
    /// run on `blockingThreads` (a server's, so that a handler's command runs right on its thread); without them
    /// the client owns a pool of its own, shut down when it is released.
    package init(
        endpoint: RedisEndpoint, prefix: String = "authflow:", maximumConnections: Int = 4,
        connectTimeout: Double = 5, commandTimeout: Double = 5,
        maximumPending: Int? = nil, blockingThreads: BlockingThreads?
    ) throws(StoreError) {
        self.endpoint = endpoint
        self.blockingThreads = blockingThreads ?? BlockingThreads(threadCount: 1, name: "authflow-redis")
        self.prefix = prefix
        self.connectTimeout = connectTimeout
        self.commandTimeout = commandTimeout
        acquireTimeout = commandTimeout
        let size = max(1, maximumConnections)
        self.size = size
        self.maximumPending = max(size, maximumPending ?? 64)
        slots = DispatchSemaphore(value: size)
        let connection = try RedisConnection(endpoint, connectTimeout: connectTimeout, commandTimeout: commandTimeout)
        _ = try connection.command([Array("PING".utf8)], operation: "connect")
        idle.withLock { $0.append(connection) }
    }

    /// Checks that Redis answers `PING`.
    ///
    /// - Throws: `StoreError` `backendFailure`.
    package func checkHealth() async throws(StoreError) {
        _ = try await command(["PING"].map { Array($0.utf8) }, operation: "checkHealth")
    }

    /// `prefix + kind + ":" + hex(digest)`: keys hold only digests.
    func key(_ kind: String, digest: [UInt8]) -> [UInt8] {
        Array((prefix + kind + ":").utf8) + Array(Hex.encode(digest).utf8)
    }

    /// Runs one command on a borrowed connection.
    func command(_ arguments: [[UInt8]], operation: String) async throws(StoreError) -> RedisReply {
        // On a thread that may block (`BlockingThreads.run`): a handler thread runs it right there.
        try await blockingThreads.storeOperation(operation) { self.run(arguments, operation: operation) }
    }

    private func run(_ arguments: [[UInt8]], operation: String) -> Result<RedisReply, StoreError> {
        let limit = admission.withLock { state -> Int? in
            let limit = state.failing ? size : maximumPending
            guard state.pending < limit else { return limit }
            state.pending += 1
            return nil
        }
        if let limit {
            return .failure(
                StoreError(
                    .busy,
                    "expected fewer than \(limit) Redis operations under way, found that many (the server may be "
                        + "slow or stalled)", operation: operation))
        }
        let (result, answered) = admitted(arguments, operation: operation)
        admission.withLock { state in
            state.pending -= 1
            state.failing = !answered
        }
        return result
    }

    /// The command's result, and whether Redis answered (a Redis error reply counts).
    private func admitted(_ arguments: [[UInt8]], operation: String) -> (Result<RedisReply, StoreError>, Bool) {
        guard slots.wait(timeout: .now() + .milliseconds(Int(acquireTimeout * 1000))) == .success else {
            return (
                .failure(
                    StoreError(.busy, "expected a free Redis connection, found the pool in use", operation: operation)),
                false
            )
        }
        defer { slots.signal() }
        var pooled = idle.withLock { $0.popLast() }
        for attempt in 0..<2 {
            let connection: RedisConnection
            if let reused = pooled {
                connection = reused
            } else {
                do {
                    connection = try RedisConnection(
                        endpoint, connectTimeout: connectTimeout, commandTimeout: commandTimeout)
                } catch {
                    var error = error
                    error.operation = operation
                    return (.failure(error), false)
                }
            }
            let result = Result { () throws(StoreError) -> RedisReply in
                try connection.command(arguments, operation: operation)
            }
            if connection.isOpen {
                idle.withLock { $0.append(connection) }
                return (result, true)
            }
            // A pooled connection the server closed (a restart) fails before the command is read: retry once on
            // a new connection. A timeout is never retried (the command may still run: a token bucket would be
            // charged twice, a spent state would read as replayed). A new connection that fails is reported.
            guard pooled != nil, attempt == 0, connection.closedByServer else { return (result, false) }
            pooled = nil
        }
        return (
            .failure(
                StoreError(.backendFailure, "expected Redis to answer, found no connection", operation: operation)),
            false
        )
    }
}
