import Synchronization

/// One counter series: a monotonically increasing count, updated with a single atomic add (no lock).
///
/// Get it from a ``CounterFamily`` (`labels(_:)`) once and keep it when the label values are
/// known up front, so the hot path is one atomic operation.
package final class MetricCounter: Sendable {
    private let count = Atomic<UInt64>(0)

    init() {}

    /// Adds `amount` (default 1).
    package func increment(by amount: UInt64 = 1) {
        count.wrappingAdd(amount, ordering: .relaxed)
    }

    /// The current count.
    package var value: UInt64 { count.load(ordering: .relaxed) }
}
