import Dispatch
import Foundation

/// Waits for Ctrl-C (SIGINT) or SIGTERM, so a server can stop gracefully.
public enum Termination {
    /// Returns when SIGINT or SIGTERM arrives.
    public static func wait() async {
        let (signals, continuation) = AsyncStream<Int32>.makeStream()
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            sources.append(source)
        }
        for await _ in signals { break }
        for source in sources { source.cancel() }
    }
}
