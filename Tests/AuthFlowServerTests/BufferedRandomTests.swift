import AuthFlowJOSE
import Synchronization
import Testing

@testable import AuthFlowServer

/// Hands out a running counter (byte n is n mod 256) and records every request.
private final class CountingSource: SecureRandom {
    let calls = Mutex<[Int]>([])
    let position = Mutex(0)
    func bytes(_ count: Int) -> [UInt8] {
        calls.withLock { $0.append(count) }
        return position.withLock { position in
            defer { position += count }
            return (position..<(position + count)).map { UInt8(truncatingIfNeeded: $0) }
        }
    }
    var recorded: [Int] { calls.withLock { $0 } }
}

/// Serialized: one test simulates a fork, which makes every buffer in the process draw a fresh chunk.
@Suite(.serialized) struct BufferedRandomTests {
    @Test func handsOutEveryByteOfAChunkOnceInOrder() {
        let source = CountingSource()
        let random = BufferedRandom(source: source)
        #expect(random.bytes(3) == [0, 1, 2])
        #expect(random.bytes(2) == [3, 4])
        #expect(random.requestID() == "05060708090a0b0c0d0e0f1011121314")
        #expect(random.bytes(0).isEmpty)
        #expect(source.recorded == [BufferedRandom.chunk])
        // The rest of the chunk, then a new one: a value never straddles two chunks.
        var taken = 21
        while taken + 32 <= BufferedRandom.chunk {
            _ = random.bytes(32)
            taken += 32
        }
        let next = random.bytes(32)
        #expect(source.recorded == [BufferedRandom.chunk, BufferedRandom.chunk])
        #expect(next == (0..<32).map { UInt8(truncatingIfNeeded: BufferedRandom.chunk + $0) })
    }

    @Test func givesWellFormedDistinctRequestIDs() {
        let random = BufferedRandom(source: SystemRandom())
        var ids: Set<String> = []
        for _ in 0..<600 {
            let id = random.requestID()
            #expect(id.utf8.count == 32)
            #expect(id.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) })
            #expect(RequestID.isWellFormed(id))
            ids.insert(id)
        }
        #expect(ids.count == 600)
    }

    @Test func passesLargeRequestsToTheSource() {
        let source = CountingSource()
        let random = BufferedRandom(source: source)
        #expect(random.bytes(BufferedRandom.chunk).count == BufferedRandom.chunk)
        #expect(source.recorded == [BufferedRandom.chunk])
        #expect(random.bytes(1) == [UInt8(truncatingIfNeeded: BufferedRandom.chunk)])
        #expect(source.recorded == [BufferedRandom.chunk, BufferedRandom.chunk])
    }

    @Test func neverUsesAChunkDrawnBeforeAFork() {
        let source = CountingSource()
        let random = BufferedRandom(source: source)
        #expect(random.bytes(1) == [0])
        // What the pthread_atfork child handler runs: the rest of the chunk drawn before the fork is dropped.
        BufferedRandom.forked()
        #expect(random.bytes(1) == [UInt8(truncatingIfNeeded: BufferedRandom.chunk)])
        #expect(source.recorded == [BufferedRandom.chunk, BufferedRandom.chunk])
        #expect(random.bytes(1) == [UInt8(truncatingIfNeeded: BufferedRandom.chunk + 1)])
        #expect(source.recorded.count == 2)
    }
}
