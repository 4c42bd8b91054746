import AuthFlowJOSE
import Foundation
import Synchronization

/// The server's randomness: a ``SecureRandom`` that draws its source (OpenSSL's `RAND_bytes` in production) in
/// chunks of ``chunk`` bytes instead of once per value, since every draw costs a lock, a `getpid` (OpenSSL's fork
/// check) and the generator's setup, and a sign-in start needs six values.
///
/// What keeps it as safe as its source:
/// - every byte is handed out once: values are cut from the chunk under a lock, and the bytes taken are
///   overwritten with zeros at once, so the buffer only ever holds bytes nobody has seen;
/// - a chunk drawn before a `fork()` is never used after it: a `pthread_atfork` child handler bumps a process-wide
///   counter and the next value draws a fresh chunk (the parent goes on with its own), so parent and child never
///   share values;
/// - requests larger than a quarter chunk go to the source directly.
///
/// The bytes held at any moment are at most one chunk: what a memory disclosure could reveal is no more than the
/// source's own generator state would.
final class BufferedRandom: SecureRandom {
    /// How many bytes are drawn from the source at once.
    static let chunk = 4096

    private struct Buffer {
        var bytes: [UInt8] = []
        var next = 0
        var forks: UInt64 = 0
    }

    private let source: any SecureRandom
    private let buffer = Mutex(Buffer())

    init(source: any SecureRandom) {
        self.source = source
        _ = Self.forkWatch
    }

    /// `count` fresh random bytes.
    func bytes(_ count: Int) -> [UInt8] {
        guard count > 0 else { return [] }
        guard count <= Self.chunk / 4 else { return source.bytes(count) }
        return [UInt8](unsafeUninitializedCapacity: count) { output, initialized in
            take(count) { taken in _ = output.initialize(fromContentsOf: taken) }
            initialized = count
        }
    }

    /// A fresh request id (the request id format: 16 random bytes as 32 lowercase hex digits),
    /// written straight from the buffer.
    func requestID() -> String {
        String(unsafeUninitializedCapacity: 32) { text in
            take(16) { bytes in Hex.write(bytes, to: text) }
            return 32
        }
    }

    /// Calls `body` with the next `count` bytes (at most a chunk), then zeroes them in the buffer.
    private func take(_ count: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        buffer.withLock { buffer in
            let forks = Self.forks.load(ordering: .acquiring)
            if buffer.next + count > buffer.bytes.count || buffer.forks != forks {
                buffer.bytes = source.bytes(Self.chunk)
                buffer.next = 0
                buffer.forks = forks
            }
            let range = buffer.next..<(buffer.next + count)
            buffer.bytes.withUnsafeMutableBufferPointer { all in
                let taken = UnsafeMutableBufferPointer(rebasing: all[range])
                body(UnsafeBufferPointer(taken))
                taken.update(repeating: 0)
            }
            buffer.next += count
        }
    }

    /// Makes every buffer in the process draw a fresh chunk before its next value; what the child of a `fork()`
    /// runs.
    static func forked() {
        forks.add(1, ordering: .releasing)
    }

    /// How many times the process was forked into the one running now (bumped in the child).
    private static let forks = Atomic<UInt64>(0)

    /// Registers the child handler once per process.
    private static let forkWatch: Void = {
        pthread_atfork(nil, nil) { BufferedRandom.forked() }
    }()
}
