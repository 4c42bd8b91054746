public import Foundation

/// The current time, injected wherever AuthFlow reads the clock so tests can be exact.
public protocol WallClock: Sendable {
    /// The current time.
    func now() -> Date
}
