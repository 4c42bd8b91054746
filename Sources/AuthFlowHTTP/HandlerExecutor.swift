import Foundation
import Synchronization

/// The threads HTTP handlers run on, apart from Swift's global concurrent pool.
///
/// Handler tasks are started with this executor as their preference, so their non-isolated code
/// and the default actors they call run here. An application (or a test suite) that keeps the
/// global pool busy with blocking or CPU-heavy work therefore cannot starve the server: a request
/// is answered as soon as one of these threads is free. The threads live as long as the process,
/// as the global pool's do; all servers of a process share them.
final class HandlerExecutor: TaskExecutor, @unchecked Sendable {
    /// The executor every `HTTPServer` of the process uses.
    static let shared = HandlerExecutor(threadCount: max(4, ProcessInfo.processInfo.activeProcessorCount * 2))

    private let condition = NSCondition()
    /// Jobs waiting for a thread, oldest first; guarded by `condition`.
    private var queue: [UnownedJob] = []
    private var head = 0

    private init(threadCount: Int) {
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
        condition.lock()
        queue.append(job)
        condition.signal()
        condition.unlock()
    }

    private func runLoop() {
        let executor = asUnownedTaskExecutor()
        while true {
            condition.lock()
            while head == queue.count { condition.wait() }
            let job = queue[head]
            head += 1
            if head == queue.count {
                queue.removeAll(keepingCapacity: true)
                head = 0
            }
            condition.unlock()
            job.runSynchronously(on: executor)
        }
    }
}
