import Dispatch
import Synchronization

/// A flag that is true exactly once, and a place to keep signal sources alive.
final class Once: Sendable {
    private let fired = Mutex(false)
    private static let sources = Mutex<[any DispatchSourceSignal]>([])

    /// `true` on the first call only.
    func first() -> Bool {
        fired.withLock { fired in
            defer { fired = true }
            return !fired
        }
    }

    /// Keeps `source` for the life of the process.
    static func keep(_ source: any DispatchSourceSignal) {
        sources.withLock { $0.append(source) }
    }
}
