import Dispatch
import Foundation
import Synchronization

/// SIGINT and SIGTERM caught (instead of killing the process) from creation on, awaited without blocking a
/// thread: what a server process needs to stop gracefully when systemd, a container runtime or Ctrl-C asks.
///
/// Create it before starting anything, so a signal that arrives during start-up is not lost; then
/// ``wait()``. ``HTTPServer/runUntilTerminated(started:)`` does both around a server.
package final class TerminationSignals: Sendable {
    private let stream: AsyncStream<Int32>
    private let sources: Mutex<[any DispatchSourceSignal]>

    /// Starts catching SIGINT and SIGTERM (their default action, ending the process, is turned off).
    package init() {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self, bufferingPolicy: .bufferingNewest(1))
        self.stream = stream
        let sources = [SIGINT, SIGTERM].map { number -> any DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
        self.sources = Mutex(sources)
    }

    /// Returns when one of the signals arrives (at once when one arrived since creation).
    package func wait() async {
        for await _ in stream { break }
        sources.withLock { sources in
            for source in sources { source.cancel() }
        }
    }
}
