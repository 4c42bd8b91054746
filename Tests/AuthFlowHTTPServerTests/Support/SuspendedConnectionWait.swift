import AuthFlowTestSupport
import Foundation
import Synchronization

@testable import AuthFlowHTTPServer

/// A handler's wait that ends only once its server has suspended the request's connection, so the handler goes
/// on on a handler thread, never on the polling thread. (A wait of a fixed duration may end while the polling
/// thread still runs the handler on a busy machine; the handler would then go on there.)
final class SuspendedConnectionWait: Sendable {
    /// Weak: the server's handler holds this wait, and a test may let the server go.
    private struct Attached {
        weak var server: HTTPServer?
    }

    private let attached = Mutex(Attached())

    init() {}

    /// The server whose connections the handler waits for; returns it.
    func attach(_ server: HTTPServer) -> HTTPServer {
        attached.withLock { $0.server = server }
        return server
    }

    /// Suspends the handler until its server has suspended `count` connections so far (60 s at most: then the
    /// handler goes on and the test's assertion on where it runs reports the failure).
    func untilSuspended(_ count: Int = 1) async {
        await withCheckedContinuation { continuation in
            let thread = Thread { [self] in
                // The server is looked up at each check, so the wait never keeps it alive.
                _ = eventuallyBlocking(within: .seconds(60), poll: .milliseconds(1)) {
                    (attached.withLock { $0.server }?.suspendedConnections ?? count) >= count
                }
                continuation.resume()
            }
            thread.name = "SuspendedConnectionWait"
            thread.start()
        }
    }
}
