import AuthFlowStores
internal import CHiredis
import Foundation

/// One hiredis connection: owns the `redisContext` and frees it in `deinit`. Not thread-safe (hence
/// `@unchecked Sendable`): ``RedisClient`` lends each connection to one operation at a time.
///
/// Commands are sent with `redisCommandArgv` only: every argument is a separate, length-delimited value, never
/// part of a command string. Failures become `StoreError`s that never contain arguments.
final class RedisConnection: @unchecked Sendable {
    private let context: UnsafeMutablePointer<redisContext>

    /// Connects to `endpoint` with a connect timeout, sets the per-command timeout, authenticates and selects
    /// the database.
    init(_ endpoint: RedisEndpoint, connectTimeout: Double, commandTimeout: Double) throws(StoreError) {
        let connectMillis = Int(max(0.001, connectTimeout) * 1000)
        let opened: UnsafeMutablePointer<redisContext>?
        switch endpoint.address {
        case .tcp(let host, let port):
            opened = redisConnectWithTimeout(host, Int32(port), af_redis_timeval(connectMillis))
        case .unix(let path):
            opened = redisConnectUnixWithTimeout(path, af_redis_timeval(connectMillis))
        }
        guard let opened else {
            throw StoreError(
                .backendFailure, "expected hiredis to allocate a connection, found none", operation: "connect")
        }
        guard opened.pointee.err == 0 else {
            let message = Self.errorText(opened)
            redisFree(opened)
            throw StoreError(.backendFailure, "expected to connect to Redis, found: \(message)", operation: "connect")
        }
        context = opened
        _ = redisSetTimeout(context, af_redis_timeval(Int(max(0.001, commandTimeout) * 1000)))
        _ = redisEnableKeepAlive(context)
        if let password = endpoint.password {
            let arguments = endpoint.user.map { ["AUTH", $0, password] } ?? ["AUTH", password]
            _ = try command(arguments.map { Array($0.utf8) }, operation: "connect")
        }
        if endpoint.database != 0 {
            _ = try command([Array("SELECT".utf8), Array(String(endpoint.database).utf8)], operation: "connect")
        }
    }

    deinit { redisFree(context) }

    /// Whether the connection is still usable (hiredis sets `err` on I/O and protocol errors).
    var isOpen: Bool { context.pointee.err == 0 }

    /// Whether the last command failed because the server had closed the connection (end of stream, a reset or a
    /// broken pipe), as after a Redis restart, rather than a timeout: only then may the command be sent again,
    /// since a command that timed out may still run.
    private(set) var closedByServer = false

    /// Runs one command; the reply as a ``RedisReply``. A Redis error reply becomes `backendFailure` naming the
    /// error's first word (e.g. `NOSCRIPT`, `WRONGTYPE`), never the arguments.
    func command(_ arguments: [[UInt8]], operation: String) throws(StoreError) -> RedisReply {
        let count = arguments.count
        var pointers: [UnsafePointer<CChar>?] = []
        var lengths: [Int] = []
        let buffers = arguments.map { bytes -> UnsafeMutablePointer<CChar> in
            let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: max(1, bytes.count))
            bytes.withUnsafeBufferPointer { source in
                source.withMemoryRebound(to: CChar.self) { chars in
                    if let base = chars.baseAddress { buffer.initialize(from: base, count: bytes.count) }
                }
            }
            return buffer
        }
        defer { for buffer in buffers { buffer.deallocate() } }
        for (index, buffer) in buffers.enumerated() {
            pointers.append(UnsafePointer(buffer))
            lengths.append(arguments[index].count)
        }
        let raw = pointers.withUnsafeMutableBufferPointer { argv in
            lengths.withUnsafeBufferPointer { argvlen in
                redisCommandArgv(context, Int32(count), argv.baseAddress, argvlen.baseAddress)
            }
        }
        guard let raw else {
            let code = errno
            closedByServer =
                context.pointee.err == REDIS_ERR_EOF
                || (context.pointee.err == REDIS_ERR_IO && (code == EPIPE || code == ECONNRESET))
            throw StoreError(
                .backendFailure, "expected Redis to answer, found the connection lost: \(Self.errorText(context))",
                operation: operation)
        }
        let reply = raw.assumingMemoryBound(to: redisReply.self)
        defer { freeReplyObject(raw) }
        let converted = Self.convert(reply)
        if case .error(let message) = converted {
            let kind = message.split(separator: " ").first.map(String.init) ?? "ERR"
            throw StoreError(.backendFailure, "Redis refused the command (\(kind))", operation: operation)
        }
        return converted
    }

    /// Copies hiredis's reply object (and its elements) into a ``RedisReply``.
    static func convert(_ reply: UnsafeMutablePointer<redisReply>) -> RedisReply {
        let value = reply.pointee
        func bytes() -> [UInt8] {
            guard let str = value.str, value.len > 0 else { return [] }
            return str.withMemoryRebound(to: UInt8.self, capacity: value.len) {
                Array(UnsafeBufferPointer(start: $0, count: value.len))
            }
        }
        switch value.type {
        case REDIS_REPLY_STRING: return .bytes(bytes())
        case REDIS_REPLY_STATUS: return .status(String(decoding: bytes(), as: UTF8.self))
        case REDIS_REPLY_INTEGER: return .integer(Int64(value.integer))
        case REDIS_REPLY_ERROR: return .error(String(decoding: bytes(), as: UTF8.self))
        case REDIS_REPLY_ARRAY:
            var elements: [RedisReply] = []
            for index in 0..<value.elements {
                if let element = value.element[index] { elements.append(convert(element)) }
            }
            return .array(elements)
        default: return .null
        }
    }

    private static func errorText(_ context: UnsafeMutablePointer<redisContext>) -> String {
        withUnsafeBytes(of: context.pointee.errstr) { raw in
            let bytes = raw.prefix { $0 != 0 }
            return String(decoding: bytes, as: UTF8.self)
        }
    }
}
