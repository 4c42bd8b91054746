import AuthFlowHTTPTestSupport
import AuthFlowTestSupport
import Dispatch
import Foundation
import Testing

@testable import AuthFlowHTTP

/// Blocking work on the handler threads (`BlockingThreads.run`) never holds up a handler that only waits:
/// when every handler thread is blocked and a job waits, another thread starts.
@Suite struct HandlerExecutorCompensationTests {
    /// A gate the blocked bodies wait at; opened once, it lets every waiter through.
    final class Gate: @unchecked Sendable {
        private let condition = NSCondition()
        private var open = false
        private(set) var waiting = 0

        func wait() {
            condition.lock()
            waiting += 1
            while !open { condition.wait() }
            waiting -= 1
            condition.unlock()
        }

        func openAll() {
            condition.lock()
            open = true
            condition.broadcast()
            condition.unlock()
        }

        var waitingNow: Int {
            condition.lock()
            defer { condition.unlock() }
            return waiting
        }
    }

    @Test func aHandlerThatOnlyWaitsGoesOnWhileEveryHandlerThreadIsBlocked() async throws {
        let threads = BlockingThreads(name: "compensation-test")
        defer { threads.shutdown() }
        let executor = threads.executor
        let gate = Gate()
        let blockers = executor.liveThreadCount + 2
        let blocked = (0..<blockers).map { _ in
            Task.detached { try await threads.run { gate.wait() } }
        }
        // Every blocker holds a handler thread: more than the executor had, so some threads were started.
        #expect(await eventually(within: .seconds(60)) { gate.waitingNow == blockers })
        #expect(executor.liveThreadCount >= blockers)

        // A handler that only waits (on another thread here, the network in a server) still runs on a handler
        // thread once it is resumed.
        let outcome = Outcome()
        let waiter = Task.detached {
            let onHandlerThread = await withTaskExecutorPreference(executor) { () async -> Bool in
                await HandlerWait.onAnotherThread()
                return BlockingThreads.currentThreadMayBlock
            }
            outcome.set(onHandlerThread)
        }
        // Polled, so that a starved waiter fails the test instead of hanging it.
        _ = await eventually(within: .seconds(60)) { outcome.value != nil }
        #expect(outcome.value == true, "the waiting handler went on while every other handler thread was blocked")
        #expect(gate.waitingNow == blockers)
        gate.openAll()
        for task in blocked { try await task.value }
        await waiter.value
    }

    /// The waiter's result, once it has one.
    final class Outcome: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: Bool?
        var value: Bool? { lock.withLock { stored } }
        func set(_ value: Bool) { lock.withLock { stored = value } }
    }
}
