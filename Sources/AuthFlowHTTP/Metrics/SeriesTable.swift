import Synchronization

/// The series of one labelled family: those declared up front sit in an immutable dictionary read without a
/// lock; others are created on first use under a lock, up to a cap, so the label set stays bounded.
final class SeriesTable<Series: AnyObject & Sendable>: Sendable {
    let labelNames: [String]
    private let fixed: [[String]: Series]
    private let extra: Mutex<[[String]: Series]>
    private let maximumSeries: Int
    private let make: @Sendable () -> Series

    init(
        labelNames: [String], preregistered: [[String]], maximumSeries: Int, make: @escaping @Sendable () -> Series
    ) {
        self.labelNames = labelNames
        var fixed: [[String]: Series] = [:]
        for values in preregistered where values.count == labelNames.count { fixed[values] = make() }
        self.fixed = fixed
        self.extra = Mutex([:])
        self.maximumSeries = max(maximumSeries, fixed.count)
        self.make = make
    }

    func series(_ values: [String]) -> Series? {
        if let series = fixed[values] { return series }
        guard values.count == labelNames.count else { return nil }
        return extra.withLock { extra in
            if let series = extra[values] { return series }
            guard fixed.count + extra.count < maximumSeries else { return nil }
            let series = make()
            extra[values] = series
            return series
        }
    }

    /// Every series with its label values, sorted by the values.
    func all() -> [([String], Series)] {
        let added = extra.withLock { Array($0) }
        return (Array(fixed) + added).map { ($0.key, $0.value) }.sorted { $0.0.lexicographicallyPrecedes($1.0) }
    }
}
