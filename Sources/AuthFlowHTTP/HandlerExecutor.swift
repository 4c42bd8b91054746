import Foundation
import Glibc
import Synchronization

/// The threads HTTP handlers run on, apart from Swift's global concurrent pool.
///
/// Handler tasks are started with this executor as their preference, so their non-isolated code
/// and the default actors they call run here. An application (or a test suite) that keeps the
/// global pool busy with blocking or CPU-heavy work therefore cannot starve the server: a request
/// is answered as soon as one of these threads is free. The threads live as long as the process,
/// as the global pool's do; all servers of a process share them. They may block
/// (``BlockingThreads``): a store may run a short operation on them directly.
///
/// A task that hops executors while it runs here (leaving an actor, say) enqueues itself again and
/// gives up its thread at once. When nothing else is waiting, that thread runs it next itself,
/// instead of waking another thread to take it over: a hop costs no wake-up and no thread switch.
/// Jobs queued by other threads, and every job while others wait, take the shared queue, oldest first.
final class HandlerExecutor: TaskExecutor, @unchecked Sendable {
    /// The executor every `HTTPServer` of the process uses.
    static let shared = HandlerExecutor(threadCount: max(4, ProcessInfo.processInfo.activeProcessorCount * 2))

    /// One handler thread's own state; read and written by that thread only.
    private final class Worker {
        /// The job the thread runs right now.
        var running: UnownedJob?
        /// The job the thread runs as soon as `running` returns (`running` itself, enqueued again).
        var next: UnownedJob?
    }

    private let condition = NSCondition()
    /// Jobs waiting for a thread, oldest first; guarded by `condition`.
    private var queue: [UnownedJob] = []
    private var head = 0
    /// The thread-specific slot holding a handler thread's `Worker` (unset on other threads).
    private let workerKey: pthread_key_t

    private init(threadCount: Int) {
        var key = pthread_key_t()
        let status = pthread_key_create(&key, nil)
        precondition(status == 0, "expected a free thread-specific key, pthread_key_create failed with \(status)")
        workerKey = key
        for index in 0..<threadCount {
            let thread = Thread { [self] in runLoop() }
            thread.name = "authflow-http-handler-\(index)"
            thread.start()
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        enqueueHandedOver(UnownedJob(job))
    }

    /// Queues a job another executor handed over (a ``RequestExecutor`` whose handler now waits).
    func enqueueHandedOver(_ job: UnownedJob) {
        let worker = workerRunning(job)
        condition.lock()
        if let worker, head == queue.count {
            worker.next = job
            condition.unlock()
            return
        }
        queue.append(job)
        condition.signal()
        condition.unlock()
    }

    /// The calling thread's `Worker` when the thread is a handler thread running `job` itself right now.
    private func workerRunning(_ job: UnownedJob) -> Worker? {
        guard let pointer = pthread_getspecific(workerKey) else { return nil }
        let worker = Unmanaged<Worker>.fromOpaque(pointer).takeUnretainedValue()
        guard worker.next == nil, let running = worker.running, Self.identity(running) == Self.identity(job) else {
            return nil
        }
        return worker
    }

    /// The job's address (an `UnownedJob` is one reference to the runtime's job, a task's being the task).
    private static func identity(_ job: UnownedJob) -> UnsafeRawPointer {
        unsafeBitCast(job, to: UnsafeRawPointer.self)
    }

    private func runLoop() {
        BlockingThreads.markCurrentThread()
        let worker = Worker()
        _ = pthread_setspecific(workerKey, Unmanaged.passRetained(worker).toOpaque())
        let executor = asUnownedTaskExecutor()
        while true {
            condition.lock()
            while head == queue.count { condition.wait() }
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
