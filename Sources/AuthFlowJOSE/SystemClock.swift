public import Foundation

/// The real clock.
public struct SystemClock: WallClock {
    /// Creates the system clock.
    public init() {}

    /// `Date()`.
    public func now() -> Date { Date() }
}
