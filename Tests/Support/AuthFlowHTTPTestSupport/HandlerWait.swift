import Foundation

/// How a test's handler waits the way one waiting on a store or a provider does, with no duration.
package enum HandlerWait {
    /// Suspends until another thread resumes the task, at once: the task waits on something outside it (as on
    /// the network) and goes on wherever its executor sends the resumed job.
    package static func onAnotherThread() async {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume() }.start()
        }
    }
}
