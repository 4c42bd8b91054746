import Glibc

/// Which threads may wait in a blocking call (a lock held by another process, a disk sync).
///
/// Swift's cooperative threads and libmicrohttpd's polling thread must never block: a store that
/// waits there holds up every other task or connection. The HTTP handler threads (the threads a
/// handler that waits runs on) are dedicated threads that may block: a store can run a short
/// operation right on such a thread instead of handing it to a queue of its own and resuming the
/// handler afterwards, which saves two thread wake-ups per operation.
///
/// The mark belongs to the thread, not to a task: it is true only on threads that were marked
/// when they started.
public enum BlockingThreads {
    /// The thread-specific slot holding the mark (non-nil on a marked thread).
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key, nil)
        precondition(status == 0, "expected a free thread-specific key, pthread_key_create failed with \(status)")
        return key
    }()

    /// Whether the calling thread may wait in a blocking call.
    public static var currentThreadMayBlock: Bool {
        pthread_getspecific(key) != nil
    }

    /// Runs `body`, which may block, on a thread that may: right on the calling thread when it may, otherwise
    /// on the HTTP handler threads, to which the calling task moves for the call (and where it goes on
    /// afterwards when it has no executor of its own to return to).
    ///
    /// From libmicrohttpd's polling thread (a handler's first store operation) this is one thread hand-over,
    /// where a queue of the store's own would be two: to the queue's thread, then to a handler thread to go
    /// on. On Swift's cooperative threads it keeps blocking work off them, as such a queue would.
    ///
    /// While `body` runs, its thread counts as blocked: when every handler thread is blocked and a handler
    /// waits to go on, another thread starts (up to 64), so blocking work never holds up handlers that only
    /// wait for the network. `body` must not call `run` itself.
    public static func run<T, Failure: Error>(_ body: () throws(Failure) -> T) async throws(Failure) -> T {
        if currentThreadMayBlock { return try HandlerExecutor.shared.blocking(body) }
        return try await withTaskExecutorPreference(HandlerExecutor.shared) { () async throws(Failure) -> T in
            // The task runs on a handler thread now (the preference moved it there).
            try HandlerExecutor.shared.blocking(body)
        }
    }

    /// Marks the calling thread as one that may block, for the rest of its life.
    static func markCurrentThread() {
        _ = pthread_setspecific(key, UnsafeRawPointer(bitPattern: 1))
    }
}
