package import Foundation
import Synchronization

/// A clock that only moves when told to, for tests.
package final class ManualClock: WallClock {
    private let current: Mutex<Date>

    /// Creates a clock showing `start`.
    package init(_ start: Date) { current = Mutex(start) }

    /// The time the clock shows.
    package func now() -> Date { current.withLock { $0 } }

    /// Moves the clock forward (or back, with a negative value) by `seconds`.
    package func advance(by seconds: Double) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }

    /// Sets the clock to `date`.
    package func set(_ date: Date) { current.withLock { $0 = date } }
}
