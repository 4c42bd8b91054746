import AuthFlowJOSE
import Foundation
import Synchronization

/// Fresh request ids (``RequestID/generate(random:)``'s format: 16 random bytes as 32 lowercase hex digits)
/// without asking the random source once per request.
///
/// The source is asked for ``chunk`` bytes at a time; each id takes the next 16 under a lock, so no byte is
/// handed out twice, and bytes are never reused or shared: a chunk drawn before a `fork()` is dropped in
/// the child (a fork counter bumped by a `pthread_atfork` child handler), which draws a chunk of its own.
/// Request ids correlate log lines with responses; they are not secrets, but they stay unpredictable.
final class RequestIDSource: Sendable {
    /// How many random bytes are drawn at once (256 ids).
    static let chunk = 4096

    private struct Buffer {
        var bytes: [UInt8] = []
        var next = 0
        var forks: UInt64 = 0
    }

    private let random: any SecureRandom
    private let buffer = Mutex(Buffer())

    init(random: any SecureRandom) {
        self.random = random
        _ = Self.forkWatch
    }

    /// The next id.
    func next() -> String {
        let digits: (UInt8) -> UInt8 = { $0 < 10 ? UInt8(ascii: "0") + $0 : UInt8(ascii: "a") + $0 - 10 }
        return String(unsafeUninitializedCapacity: 32) { text in
            buffer.withLock { buffer in
                let forks = Self.forks.load(ordering: .acquiring)
                if buffer.next + 16 > buffer.bytes.count || buffer.forks != forks {
                    buffer.bytes = random.bytes(Self.chunk)
                    buffer.next = 0
                    buffer.forks = forks
                }
                for index in 0..<16 {
                    let byte = buffer.bytes[buffer.next + index]
                    text[2 * index] = digits(byte >> 4)
                    text[2 * index + 1] = digits(byte & 0x0F)
                    // Taken bytes are overwritten: they exist once, in the id.
                    buffer.bytes[buffer.next + index] = 0
                }
                buffer.next += 16
            }
            return 32
        }
    }

    /// How many times this process was forked into the one running now (bumped in the child).
    private static let forks = Atomic<UInt64>(0)

    /// Makes every source draw a fresh chunk before its next id; what the child of a `fork()` runs.
    static func forked() {
        forks.add(1, ordering: .releasing)
    }

    /// Registers the child handler once per process.
    private static let forkWatch: Void = {
        pthread_atfork(nil, nil) { RequestIDSource.forked() }
    }()
}
