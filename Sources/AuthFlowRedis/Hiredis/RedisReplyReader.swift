import AuthFlowStores
internal import CHiredis

/// Parses Redis protocol bytes with hiredis's reader into ``RedisReply`` values, through the same conversion
/// as replies read from a server: what the fuzz harness drives without a server. Used by one thread at a time.
final class RedisReplyReader {
    private let reader: UnsafeMutablePointer<redisReader>

    /// `nil` when hiredis cannot allocate a reader.
    init?() {
        guard let reader = redisReaderCreate() else { return nil }
        self.reader = reader
    }

    deinit { redisReaderFree(reader) }

    /// Appends `bytes` to what the reader holds.
    func feed(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { raw in
            _ = redisReaderFeed(reader, raw.baseAddress?.assumingMemoryBound(to: CChar.self), raw.count)
        }
    }

    /// The next complete reply, or `nil` when the bytes fed so far hold none.
    ///
    /// - Throws: `StoreError` `corruptData` when the bytes are not the Redis protocol.
    func next() throws(StoreError) -> RedisReply? {
        var raw: UnsafeMutableRawPointer?
        guard redisReaderGetReply(reader, &raw) == REDIS_OK else {
            throw StoreError(.corruptData, "expected a Redis protocol reply, found other bytes", operation: "read")
        }
        guard let raw else { return nil }
        defer { freeReplyObject(raw) }
        return RedisConnection.convert(raw.assumingMemoryBound(to: redisReply.self))
    }
}
