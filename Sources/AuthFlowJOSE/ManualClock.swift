public import Foundation
import Synchronization

/// A clock that only moves when told to, for tests.
public final class ManualClock: WallClock {
    private let current: Mutex<Date>

    /// Creates a clock showing `start`.
    public init(_ start: Date) { current = Mutex(start) }

    /// The time the clock shows.
    public func now() -> Date { current.withLock { $0 } }

    /// Moves the clock forward (or back, with a negative value) by `seconds`.
    public func advance(by seconds: Double) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }

    /// Sets the clock to `date`.
    public func set(_ date: Date) { current.withLock { $0 = date } }
}
