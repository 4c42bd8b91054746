package import AuthFlowJSON

import Foundation

/// A pool of threads that may wait in a blocking call (a lock held by another process, a disk sync, a
/// network round trip), owned by whoever creates it and ended with ``shutdown()``.
///
/// Swift's cooperative threads and libmicrohttpd's polling thread must never block: a store that
/// waits there holds up every other task or connection. An `HTTPServer` runs its handlers that wait on
/// such a pool (its own, or one passed in), and a store runs its blocking operations through one
/// (its `run`). A deployment passes one pool to its server and its stores, so that a store operation
/// from a handler runs right on the handler's thread instead of handing it to a queue of the store's
/// own and resuming the handler afterwards, which saves two thread wake-ups per operation.
///
/// Whether a thread may block belongs to the thread, not to a task: it is true only on the threads of
/// a pool (`currentThreadMayBlock`), whichever pool that is.
package final class BlockingThreads: Sendable {
    /// The executor behind the pool: HTTP servers start their handler tasks with it as their preference.
    package let executor: HandlerExecutor

    /// The threads a pool starts at once by default: twice the processors, at least four.
    package static var defaultThreadCount: Int { max(4, ProcessInfo.processInfo.activeProcessorCount * 2) }

    /// A pool that starts `threadCount` threads at once (more start while all of them are blocked, up to 64),
    /// named `name-<index>`.
    package init(threadCount: Int = BlockingThreads.defaultThreadCount, name: String = "authflow-blocking") {
        executor = HandlerExecutor(threadCount: max(1, threadCount), threadName: name)
    }

    /// Shuts the pool down when its owner lets it go, so an owned pool never outlives its owner.
    deinit {
        executor.shutdown()
    }

    /// Whether the calling thread may wait in a blocking call: whether it is a thread of a pool.
    package static var currentThreadMayBlock: Bool {
        HandlerExecutor.current != nil
    }

    /// Whether ``shutdown()`` was called.
    package var isShutDown: Bool { executor.hasShutDown }

    /// Threads of the pool alive now (they end after ``shutdown()`` once idle).
    package var liveThreadCount: Int { executor.liveThreadCount }

    /// Refuses further `run` calls and lets every thread end once no job waits. A task that still runs on
    /// the pool goes on to its end. Calling it again does nothing.
    package func shutdown() {
        executor.shutdown()
    }

    /// Runs `body`, which may block, on a thread that may: right on the calling thread when it is a thread of a
    /// pool, otherwise on this pool's threads, to which the calling task moves for the call (and where it goes
    /// on afterwards when it has no executor of its own to return to).
    ///
    /// From libmicrohttpd's polling thread (a handler's first store operation) this is one thread hand-over,
    /// where a queue of the store's own would be two: to the queue's thread, then to a handler thread to go
    /// on. On Swift's cooperative threads it keeps blocking work off them, as such a queue would.
    ///
    /// While `body` runs, its thread counts as blocked: when every thread of its pool is blocked and a task
    /// waits to go on, another thread starts (up to 64), so blocking work never holds up handlers that only
    /// wait for the network. `body` must not call `run` itself.
    ///
    /// - Throws: `BlockingThreadsError` `.shutDown` after ``shutdown()``, without running `body`.
    package func run<T>(_ body: () -> T) async throws(BlockingThreadsError) -> T {
        guard !executor.hasShutDown else {
            throw BlockingThreadsError(
                code: .shutDown, message: "expected a running pool of blocking threads, found it shut down")
        }
        if let current = HandlerExecutor.current { return current.blocking(body) }
        let executor = self.executor
        return await withTaskExecutorPreference(executor) {
            // The task runs on one of the pool's threads now (the preference moved it there).
            executor.blocking(body)
        }
    }
}

/// Why ``BlockingThreads`` refused work.
package struct BlockingThreadsError: CodedError, Sendable, Equatable {
    /// A stable identifier for the kind of failure.
    package typealias Code = ErrorCode<BlockingThreadsError>

    /// What went wrong.
    package let code: Code
    /// What was expected and what was found.
    package let message: String

    /// An error with the given code and message.
    package init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// `code: message`.
    package var description: String { "\(code): \(message)" }
}

extension ErrorCode where Domain == BlockingThreadsError {
    /// The pool was shut down (``BlockingThreads/shutdown()``) before the work was asked of it.
    package static var shutDown: Self { Self(rawValue: "shut_down") }
}
