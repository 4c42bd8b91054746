public import AuthFlow
import Dispatch
import Synchronization

/// A small pool of Redis connections shared by ``RedisSessionStore``, ``RedisFlowStore`` and
/// ``RedisRateLimitStore``, with every key under one prefix.
///
/// An operation borrows one connection for its run on a thread that may block (`BlockingThreads.run`: an HTTP
/// handler thread; a connection is used by one thread at a time; blocking I/O never runs on Swift's
/// cooperative threads or libmicrohttpd's polling thread). Connecting and every command time out, so a
/// dead server gives a typed `backendFailure`, never a hang. A connection that failed is dropped and the next
/// operation connects again, so the client recovers by itself when Redis is back.
public final class RedisClient: Sendable {
    /// The prefix of every key (`store.redis_prefix`, default `authflow:`).
    public let prefix: String

    private let endpoint: RedisEndpoint
    private let connectTimeout: Double
    private let commandTimeout: Double
    private let idle = Mutex<[RedisConnection]>([])
    private let slots: DispatchSemaphore
    private let acquireTimeout: Double

    /// Connects once to check the server answers.
    ///
    /// - Parameters:
    ///   - endpoint: where Redis listens and how to log in.
    ///   - prefix: prepended to every key.
    ///   - maximumConnections: the pool's size.
    ///   - connectTimeout: seconds to connect.
    ///   - commandTimeout: seconds any command may take.
    /// - Throws: `StoreError` `backendFailure` when Redis cannot be reached or refuses the login.
    public init(
        endpoint: RedisEndpoint, prefix: String = "authflow:", maximumConnections: Int = 4, connectTimeout: Double = 5,
        commandTimeout: Double = 5
    ) throws(StoreError) {
        self.endpoint = endpoint
        self.prefix = prefix
        self.connectTimeout = connectTimeout
        self.commandTimeout = commandTimeout
        acquireTimeout = commandTimeout * 2
        slots = DispatchSemaphore(value: max(1, maximumConnections))
        let connection = try RedisConnection(endpoint, connectTimeout: connectTimeout, commandTimeout: commandTimeout)
        _ = try connection.command([Array("PING".utf8)], operation: "connect")
        idle.withLock { $0.append(connection) }
    }

    /// Checks that Redis answers `PING`.
    ///
    /// - Throws: `StoreError` `backendFailure`.
    public func checkHealth() async throws(StoreError) {
        _ = try await command(["PING"].map { Array($0.utf8) }, operation: "checkHealth")
    }

    /// `prefix + kind + ":" + hex(digest)`: keys hold only digests.
    func key(_ kind: String, digest: [UInt8]) -> [UInt8] {
        Array((prefix + kind + ":").utf8) + Array(Self.hex(digest).utf8)
    }

    /// Runs one command on a borrowed connection.
    func command(_ arguments: [[UInt8]], operation: String) async throws(StoreError) -> RedisReply {
        // On a thread that may block (`BlockingThreads.run`): a handler thread runs it right there.
        try await BlockingThreads.run { () throws(StoreError) -> RedisReply in
            try self.run(arguments, operation: operation).get()
        }
    }

    private func run(_ arguments: [[UInt8]], operation: String) -> Result<RedisReply, StoreError> {
        guard slots.wait(timeout: .now() + .milliseconds(Int(acquireTimeout * 1000))) == .success else {
            return .failure(
                StoreError(.busy, "expected a free Redis connection, found the pool in use", operation: operation))
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
                    return .failure(error)
                }
            }
            let result = Result { () throws(StoreError) -> RedisReply in
                try connection.command(arguments, operation: operation)
            }
            if connection.isOpen {
                idle.withLock { $0.append(connection) }
                return result
            }
            // A pooled connection the server closed (a restart) fails before the command is read: retry once on
            // a new connection. A timeout is never retried (the command may still run: a token bucket would be
            // charged twice, a spent state would read as replayed). A new connection that fails is reported.
            guard pooled != nil, attempt == 0, connection.closedByServer else { return result }
            pooled = nil
        }
        return .failure(
            StoreError(.backendFailure, "expected Redis to answer, found no connection", operation: operation))
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            output.append(digits[Int(byte >> 4)])
            output.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: output, as: UTF8.self)
    }
}
