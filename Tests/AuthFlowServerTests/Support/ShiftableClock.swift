import AuthFlowJOSE
import Foundation
import Synchronization

/// The system time plus an offset a test can move forward (to expire flows, sessions and notifications)
/// without freezing time for the sandbox's tokens.
final class ShiftableClock: WallClock {
    private let offset = Mutex(0.0)

    func now() -> Date { Date().addingTimeInterval(offset.withLock { $0 }) }

    func advance(by seconds: Double) { offset.withLock { $0 += seconds } }
}
