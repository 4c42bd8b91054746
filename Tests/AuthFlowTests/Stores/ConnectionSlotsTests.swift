import AuthFlow
import AuthFlowHTTP
import Testing

/// The slots of a store's connection pool: operations wait for one suspended, on no thread, oldest first, until
/// their deadline.
@Suite struct ConnectionSlotsTests {
    /// A deadline no test reaches.
    static var far: ContinuousClock.Instant { .now.advanced(by: .seconds(600)) }

    /// Waits (without a time limit) until `count` operations wait for a slot.
    static func waitUntil(_ slots: ConnectionSlots, has count: Int) async {
        while slots.waiting != count { await Task.yield() }
    }

    @Test func aSlotGivenBackGoesToTheOldestWaiter() async {
        let slots = ConnectionSlots(count: 1)
        #expect(await slots.acquire(until: Self.far))
        let first = Task { await slots.acquire(until: Self.far) }
        await Self.waitUntil(slots, has: 1)
        let second = Task { await slots.acquire(until: Self.far) }
        await Self.waitUntil(slots, has: 2)
        slots.release()
        #expect(await first.value)
        #expect(slots.waiting == 1)
        slots.release()
        #expect(await second.value)
        slots.release()
        // Free again: taken at once.
        #expect(await slots.acquire(until: Self.far))
    }

    @Test func aWaitEndsAtItsDeadlineWithoutASlotAndLeavesNothingBehind() async {
        let slots = ConnectionSlots(count: 1)
        #expect(await slots.acquire(until: Self.far))
        #expect(await slots.acquire(until: .now.advanced(by: .milliseconds(20))) == false)
        #expect(slots.waiting == 0)
        #expect(await slots.acquire(until: .now) == false)
        slots.release()
        #expect(await slots.acquire(until: Self.far))
    }

    /// Sixty-four operations waiting for the one slot of a pool whose blocking threads are two: they hold none of
    /// them (no thread starts for them), and the pool's threads still run other work.
    @Test func waitersHoldNoThreadOfThePool() async throws {
        let threads = BlockingThreads(threadCount: 2, name: "slots-test")
        defer { threads.shutdown() }
        let slots = ConnectionSlots(count: 1)
        #expect(await slots.acquire(until: Self.far))
        let waiters = (0..<64).map { _ in
            Task(executorPreference: threads.executor) { await slots.acquire(until: Self.far) }
        }
        await Self.waitUntil(slots, has: 64)
        #expect(threads.liveThreadCount == 2)
        #expect(try await threads.run { 42 } == 42)
        for _ in 0...64 { slots.release() }
        for waiter in waiters { #expect(await waiter.value) }
    }
}
