public import AuthFlowJOSE
public import Foundation

/// A clock that always shows the same time, so a harness's verdicts do not depend on when it runs.
public struct FixedClock: WallClock {
    /// The time shown.
    public let date: Date

    /// A clock showing `date`.
    public init(_ date: Date) { self.date = date }

    public func now() -> Date { date }
}
