/// A Redis reply, copied out of hiredis's reply object.
enum RedisReply: Sendable, Hashable {
    case null
    case bytes([UInt8])
    case status(String)
    case integer(Int64)
    case error(String)
    case array([RedisReply])

    /// The integer of an integer reply.
    var integer: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    /// The bytes of a bulk-string reply; `nil` for nil and other replies.
    var bytes: [UInt8]? {
        if case .bytes(let value) = self { return value }
        return nil
    }

    /// The items of an array reply; `nil` for other replies.
    var array: [RedisReply]? {
        if case .array(let value) = self { return value }
        return nil
    }
}
