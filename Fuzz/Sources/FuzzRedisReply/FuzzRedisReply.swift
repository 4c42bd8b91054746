import AuthFlowStores
import Foundation
import FuzzSupport

@testable import AuthFlowRedis

/// Redis protocol bytes read by hiredis's reader and converted as server replies are: no crash; each reply
/// survives writing it back in the protocol; a bulk string read as a stored session record either is refused
/// with `corrupt_data` or decodes to a record that encodes and decodes to itself.
///
/// hiredis 0.14 allocates an array's element table as the reply announces it (`*700000000` asks for 5.6 GB),
/// before any element arrives; the Redis server is trusted to announce what it sends, so inputs announcing
/// more than 65,536 elements are skipped rather than reported as out-of-memory.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRedisReply(_ data: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: data, count: count))
    if announcesAHugeArray(bytes) { return 0 }
    guard let reader = RedisReplyReader() else { fatalError("hiredis could not allocate a reader") }
    reader.feed(bytes)
    for _ in 0..<64 {
        let reply: RedisReply
        do throws(StoreError) {
            guard let next = try reader.next() else { return 0 }
            reply = next
        } catch {
            if error.code != "corrupt_data" { fatalError("a reader error that is not corrupt_data: \(error)") }
            return 0
        }
        check(reply)
    }
    return 0
}

private func check(_ reply: RedisReply) {
    guard let again = RedisReplyReader() else { fatalError("hiredis could not allocate a reader") }
    again.feed(encoded(reply))
    let reread = try? again.next()
    if reread != reply { fatalError("a reply that reads back differently once written in the protocol") }
    for bytes in strings(reply) {
        do throws(StoreError) {
            let record = try RedisSessionRecord.decode(bytes, operation: "fuzz")
            guard record.createdAt.timeIntervalSince1970.isFinite, record.expiresAt.timeIntervalSince1970.isFinite
            else { continue }
            let decoded = try? RedisSessionRecord.decode(RedisSessionRecord.encode(record), operation: "fuzz")
            if decoded != record { fatalError("a session record that does not survive encoding") }
        } catch {
            if error.code != "corrupt_data" { fatalError("a record refusal that is not corrupt_data: \(error)") }
        }
    }
}

/// Whether any `*` in `bytes` is followed by a number above 65,536 (an over-approximation of array headers).
private func announcesAHugeArray(_ bytes: [UInt8]) -> Bool {
    var index = 0
    while index < bytes.count {
        defer { index += 1 }
        guard bytes[index] == UInt8(ascii: "*") else { continue }
        var value = 0
        var digit = index + 1
        while digit < bytes.count, bytes[digit] >= UInt8(ascii: "0"), bytes[digit] <= UInt8(ascii: "9") {
            value = value * 10 + Int(bytes[digit] - UInt8(ascii: "0"))
            if value > 65_536 { return true }
            digit += 1
        }
    }
    return false
}

/// Every bulk string in `reply`, nested ones included.
private func strings(_ reply: RedisReply) -> [[UInt8]] {
    switch reply {
    case .bytes(let bytes): return [bytes]
    case .array(let elements): return elements.flatMap(strings)
    default: return []
    }
}

/// `reply` in the Redis protocol (RESP2).
private func encoded(_ reply: RedisReply) -> [UInt8] {
    func line(_ text: String) -> [UInt8] { Array(text.utf8) + [13, 10] }
    switch reply {
    case .null: return line("$-1")
    case .bytes(let bytes): return line("$\(bytes.count)") + bytes + [13, 10]
    case .status(let text): return line("+" + text)
    case .integer(let value): return line(":\(value)")
    case .error(let text): return line("-" + text)
    case .array(let elements): return line("*\(elements.count)") + elements.flatMap(encoded)
    }
}
