import Foundation
import Glibc
import Synchronization

/// The threads HTTP handlers run on, apart from Swift's global concurrent pool.
///
/// Handler tasks are started with this executor as their preference, so their non-isolated code
/// and the default actors they call run here. An application (or a test suite) that keeps the
/// global pool busy with blocking or CPU-heavy work therefore cannot starve the server: a request
/// is answered as soon as one of these threads is free. The threads live as long as the process,
/// until ``shutdown()``; the ``BlockingThreads`` that owns the executor shuts it down. They may block: a store
/// may run a short operation on them directly.
///
/// A task that hops executors while it runs here (entering or leaving an actor, say) enqueues a job (the
/// actor's, or its own again) and gives up its thread at once. When nothing else is waiting, that thread
/// runs the job next itself, instead of waking another thread to take it over: a hop costs no wake-up and
/// no thread switch. Jobs queued by other threads, and every job while others wait, take the shared queue,
/// oldest first.
///
/// Blocking work runs through ``blocking(_:)`` (`BlockingThreads.run`), which counts the threads inside it.
/// When a job waits and every thread is inside blocking work (a store waiting out another process's write
/// lock, say), one more thread starts, up to ``maximumThreadCount``, so handlers that only wait for the
/// network or a timer never queue behind blocked ones. A thread started that way ends after
/// ``spareThreadIdleSeconds`` without work.
package final class HandlerExecutor: TaskExecutor, @unchecked Sendable {
    /// One handler thread's own state; read and written by that thread only (`executor` is fixed).
    private final class Worker {
        /// The executor the thread belongs to (which keeps itself alive while its threads run).
        unowned let executor: HandlerExecutor
        init(executor: HandlerExecutor) { self.executor = executor }
        /// The job the thread runs right now.
        var running: UnownedJob?
        /// The job the thread runs as soon as `running` returns (`running` itself, enqueued again).
        var next: UnownedJob?
    }

    /// The most threads the executor runs at once, spare threads included.
    static let maximumThreadCount = 64
    /// How long a spare thread (one beyond the initial count) waits for work before it ends.
    static let spareThreadIdleSeconds = 10.0

    private let condition = NSCondition()
    /// Jobs waiting for a thread, oldest first; guarded by `condition`.
    private var queue: [UnownedJob] = []
    private var head = 0
    /// The threads started at first; more start only while every thread is blocked.
    private let baseThreadCount: Int
    /// Live threads, threads waiting for a job, threads inside blocking work; guarded by `condition`.
    private var threadCount = 0
    private var idleCount = 0
    private var blockedCount = 0
    private var nextThreadIndex = 0
    /// Set by ``shutdown()``: idle threads end, and a job queued afterwards gets a thread that ends once idle.
    private var isShutDown = false
    /// The name of the threads, before their index.
    private let threadName: String
    /// The thread-specific slot holding a handler thread's `Worker`, for every executor (unset on other threads).
    private static let workerKey: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key, nil)
        precondition(status == 0, "expected a free thread-specific key, pthread_key_create failed with \(status)")
        return key
    }()

    /// An executor that starts `threadCount` threads named `threadName-<index>` at once.
    package init(threadCount: Int, threadName: String) {
        baseThreadCount = threadCount
        self.threadName = threadName
        condition.lock()
        for _ in 0..<threadCount { startThread() }
        condition.unlock()
    }

    /// The executor whose thread is the calling one, or `nil` on any other thread.
    package static var current: HandlerExecutor? {
        guard let pointer = pthread_getspecific(workerKey) else { return nil }
        return Unmanaged<Worker>.fromOpaque(pointer).takeUnretainedValue().executor
    }

    /// Whether ``shutdown()`` was called.
    package var hasShutDown: Bool {
        condition.lock()
        defer { condition.unlock() }
        return isShutDown
    }

    /// Lets every thread end once no job waits. A job queued afterwards (a task that still had this executor as
    /// its preference) still runs, on a thread started for it that ends once idle, so no task is left hanging.
    package func shutdown() {
        condition.lock()
        isShutDown = true
        condition.unlock()
        condition.broadcast()
    }

    /// The number of live threads (for tests and diagnostics).
    package var liveThreadCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return threadCount
    }

    /// Starts one more thread; the caller holds `condition`.
    private func startThread() {
        threadCount += 1
        let index = nextThreadIndex
        nextThreadIndex += 1
        let thread = Thread { [self] in runLoop(spare: index >= baseThreadCount) }
        thread.name = "\(threadName)-\(index)"
        thread.start()
    }

    /// Starts a thread when a job waits and no thread can take it: none is idle and every live one is blocked.
    /// The caller holds `condition`.
    private func startThreadIfAllBlocked() {
        guard head < queue.count, idleCount == 0, blockedCount >= threadCount || isShutDown,
            threadCount < Self.maximumThreadCount
        else { return }
        startThread()
    }

    /// Runs `body`, which may block, on the calling handler thread, counted as blocked meanwhile (see the type's
    /// notes); the caller must be a handler thread.
    package func blocking<T, Failure: Error>(_ body: () throws(Failure) -> T) throws(Failure) -> T {
        condition.lock()
        blockedCount += 1
        // A job this thread kept to run next must not wait for the blocking work: it goes to another thread.
        if let worker = currentWorker(), let next = worker.next {
            worker.next = nil
            queue.append(next)
            if idleCount > 0 { condition.signal() }
        }
        startThreadIfAllBlocked()
        condition.unlock()
        defer {
            condition.lock()
            blockedCount -= 1
            condition.unlock()
        }
        return try body()
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        enqueueHandedOver(UnownedJob(job))
    }

    /// Queues a job another executor handed over (a ``RequestExecutor`` whose handler now waits).
    ///
    /// A job a handler thread enqueues while it runs one (a task hopping to or from an actor, or resuming
    /// itself) runs next on that same thread when nothing else waits: the running job is almost always about
    /// to return (its task just suspended), so waking another thread would only add a thread switch. Blocking
    /// work hands such a kept job to another thread first (``blocking(_:)``).
    package func enqueueHandedOver(_ job: UnownedJob) {
        let worker = currentWorker()
        condition.lock()
        if let worker, worker.running != nil, worker.next == nil, head == queue.count {
            worker.next = job
            condition.unlock()
            return
        }
        queue.append(job)
        let wake = idleCount > 0
        if !wake { startThreadIfAllBlocked() }
        condition.unlock()
        // Signalled after unlocking, so the woken thread does not at once wait for the lock.
        if wake { condition.signal() }
    }

    /// The calling thread's `Worker`, or `nil` on a thread that is not one of the handler threads.
    private func currentWorker() -> Worker? {
        guard let pointer = pthread_getspecific(Self.workerKey) else { return nil }
        let worker = Unmanaged<Worker>.fromOpaque(pointer).takeUnretainedValue()
        return worker.executor === self ? worker : nil
    }

    private func runLoop(spare: Bool) {
        let worker = Worker(executor: self)
        let retained = Unmanaged.passRetained(worker)
        _ = pthread_setspecific(Self.workerKey, retained.toOpaque())
        defer {
            _ = pthread_setspecific(Self.workerKey, nil)
            retained.release()
        }
        let executor = asUnownedTaskExecutor()
        while true {
            condition.lock()
            while head == queue.count {
                if isShutDown {
                    // Shut down and nothing waits: the thread ends.
                    threadCount -= 1
                    condition.unlock()
                    return
                }
                idleCount += 1
                var timedOut = false
                if spare {
                    timedOut = !condition.wait(until: Date().addingTimeInterval(Self.spareThreadIdleSeconds))
                } else {
                    condition.wait()
                }
                idleCount -= 1
                if timedOut, head == queue.count {
                    // A spare thread without work for a while ends.
                    threadCount -= 1
                    condition.unlock()
                    return
                }
            }
            var job = queue[head]
            head += 1
            if head == queue.count {
                queue.removeAll(keepingCapacity: true)
                head = 0
            }
            condition.unlock()
            while true {
                worker.running = job
                job.runSynchronously(on: executor)
                worker.running = nil
                guard let next = worker.next else { break }
                worker.next = nil
                job = next
            }
        }
    }
}
