import AuthFlowHTTP
import Synchronization

/// The task executor of one request's handler: runs the handler on libmicrohttpd's polling thread
/// for as long as it does not wait, then hands it to the handler threads.
///
/// The polling thread starts the handler's task with this executor as its preference and calls
/// ``drain()``: every job the task (or an actor it calls) enqueues meanwhile runs right there, so a
/// handler that answers without waiting (a cached session, a redirect) is answered before
/// `access` returns, with no thread switch and no suspend/resume of the connection. Once the
/// queue is empty the handler is waiting on something else (a store's queue, an HTTP client);
/// from then on its jobs go to the server's handler threads, exactly as before, so a waiting
/// handler never holds the polling thread.
final class RequestExecutor: TaskExecutor, @unchecked Sendable {
    /// The queue, first in first out: a handler that answers at once enqueues one job (its start), so the
    /// oldest job waits in `first` and only a second one queued behind it allocates the array.
    private struct State {
        var inline = true
        var first: UnownedJob?
        var rest: [UnownedJob] = []
    }

    private let state = Mutex(State())
    /// The handler threads that take the jobs once the handler waits.
    private let handlerThreads: HandlerExecutor

    init(forwardingTo handlerThreads: HandlerExecutor) {
        self.handlerThreads = handlerThreads
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let forward = state.withLock { state -> Bool in
            guard state.inline else { return true }
            // `first` is only ever older than everything in `rest`.
            if state.first == nil && state.rest.isEmpty {
                state.first = job
            } else {
                state.rest.append(job)
            }
            return false
        }
        if forward { handlerThreads.enqueueHandedOver(job) }
    }

    /// Runs the queued jobs on the calling thread until none is left, then switches to forwarding.
    func drain() {
        let executor = asUnownedTaskExecutor()
        while true {
            let next = state.withLock { state -> UnownedJob? in
                if let first = state.first {
                    state.first = nil
                    return first
                }
                guard !state.rest.isEmpty else {
                    state.inline = false
                    return nil
                }
                return state.rest.removeFirst()
            }
            guard let next else { return }
            next.runSynchronously(on: executor)
        }
    }
}
