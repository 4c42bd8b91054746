import Synchronization

/// One histogram series: counts of observations per upper bound, their sum and their count, each updated
/// atomically (no lock).
package final class MetricHistogram: Sendable {
    /// The finite upper bounds, ascending; a last `+Inf` bucket is implied.
    package let upperBounds: [Double]
    // One counter per bucket (not cumulative); the last one is `+Inf`.
    private let buckets: [MetricCounter]
    // The sum as the bit pattern of a `Double`, updated by compare-and-exchange.
    private let sumBits = Atomic<UInt64>(0)

    init(upperBounds: [Double]) {
        self.upperBounds = upperBounds
        self.buckets = (0...upperBounds.count).map { _ in MetricCounter() }
    }

    /// Records one observation (e.g. a duration in seconds). NaN is ignored; negative values count as 0.
    package func observe(_ value: Double) {
        guard !value.isNaN else { return }
        let value = max(value, 0)
        let index = upperBounds.firstIndex { value <= $0 } ?? upperBounds.count
        buckets[index].increment()
        var current = sumBits.load(ordering: .relaxed)
        while true {
            let next = (Double(bitPattern: current) + value).bitPattern
            let (exchanged, original) = sumBits.compareExchange(
                expected: current, desired: next, ordering: .relaxed)
            if exchanged { return }
            current = original
        }
    }

    /// A consistent-enough reading: cumulative counts per bound (the last is `+Inf`, equal to ``Snapshot/count``)
    /// and the sum.
    package var snapshot: Snapshot {
        var cumulative: [UInt64] = []
        cumulative.reserveCapacity(buckets.count)
        var running: UInt64 = 0
        for bucket in buckets {
            running &+= bucket.value
            cumulative.append(running)
        }
        return Snapshot(cumulativeCounts: cumulative, sum: Double(bitPattern: sumBits.load(ordering: .relaxed)))
    }

    /// A reading of a histogram series.
    package struct Snapshot: Sendable, Hashable {
        /// Cumulative counts, one per finite upper bound and a last one for `+Inf`.
        package let cumulativeCounts: [UInt64]
        /// The sum of the observations.
        package let sum: Double
        /// The number of observations.
        package var count: UInt64 { cumulativeCounts.last ?? 0 }
    }
}
