import Dispatch
import Foundation

/// Waits for Ctrl-C (SIGINT) or SIGTERM, so a server can stop gracefully.
public enum Termination {
    /// Returns when SIGINT or SIGTERM arrives.
    public static func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let once = Once()
            for number in [SIGINT, SIGTERM] {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler {
                    if once.first() { continuation.resume() }
                }
                source.resume()
                Once.keep(source)
            }
        }
    }
}
