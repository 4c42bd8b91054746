import AuthFlowJOSE
import Synchronization
import Testing

@testable import AuthFlowServer

/// Counts how many bytes were asked for, in how many calls, and hands out a running counter.
private final class MeteredRandom: SecureRandom {
    let calls = Mutex<[Int]>([])
    let next = Mutex<UInt64>(0)
    func bytes(_ count: Int) -> [UInt8] {
        calls.withLock { $0.append(count) }
        return next.withLock { next in
            (0..<count).map { _ in
                next &+= 0x9E37_79B9_7F4A_7C15
                return UInt8(truncatingIfNeeded: next >> 56)
            }
        }
    }
}

/// Serialized: one test simulates a fork, which makes every source in the process draw a fresh chunk.
@Suite(.serialized) struct RequestIDSourceTests {
    @Test func givesWellFormedDistinctIDsDrawingTheRandomSourceInChunks() {
        let random = MeteredRandom()
        let source = RequestIDSource(random: random)
        let perChunk = RequestIDSource.chunk / 16
        var ids: Set<String> = []
        for _ in 0..<(perChunk + 1) {
            let id = source.next()
            #expect(id.utf8.count == 32 && id.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) })
            #expect(RequestID.isWellFormed(id))
            ids.insert(id)
        }
        #expect(ids.count == perChunk + 1)
        // One chunk for the first 256 ids, a second for the 257th: no byte is handed out twice.
        #expect(random.calls.withLock { $0 } == [RequestIDSource.chunk, RequestIDSource.chunk])
    }

    @Test func encodesTheDrawnBytesAsLowercaseHexInOrder() {
        struct Counting: SecureRandom {
            func bytes(_ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0 * 17) } }
        }
        let source = RequestIDSource(random: Counting())
        #expect(source.next() == "00112233445566778899aabbccddeeff")
        #expect(source.next() == "102132435465768798a9bacbdcedfe0f")
    }

    @Test func drawsAFreshChunkAfterAFork() {
        let random = MeteredRandom()
        let source = RequestIDSource(random: random)
        _ = source.next()
        #expect(random.calls.withLock { $0.count } == 1)
        // What the pthread_atfork child handler runs: the rest of the chunk drawn before the fork is never used.
        RequestIDSource.forked()
        _ = source.next()
        #expect(random.calls.withLock { $0.count } == 2)
        _ = source.next()
        #expect(random.calls.withLock { $0.count } == 2)
    }
}
