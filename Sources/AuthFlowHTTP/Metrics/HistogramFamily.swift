/// A histogram metric with labels: one ``MetricHistogram`` per combination of label values, all with the same
/// bucket bounds. Bounded like ``CounterFamily``.
public final class HistogramFamily: Sendable {
    /// The metric name.
    public let name: String
    /// The help text.
    public let help: String
    /// The finite bucket upper bounds, ascending.
    public let upperBounds: [Double]
    let table: SeriesTable<MetricHistogram>

    init(
        name: String, help: String, labelNames: [String], upperBounds: [Double], preregistered: [[String]],
        maximumSeries: Int
    ) {
        self.name = name
        self.help = help
        self.upperBounds = upperBounds
        self.table = SeriesTable(
            labelNames: labelNames, preregistered: preregistered, maximumSeries: maximumSeries,
            make: { MetricHistogram(upperBounds: upperBounds) })
    }

    /// The label names, in order.
    public var labelNames: [String] { table.labelNames }

    /// The series for these label values, or `nil` when their number is wrong or the family is full.
    public func labels(_ values: String...) -> MetricHistogram? { table.series(values) }

    /// The series for these label values, or `nil` when their number is wrong or the family is full.
    public func labels(_ values: [String]) -> MetricHistogram? { table.series(values) }

    /// Seconds from 5 ms to 10 s, for request and sign-in durations.
    public static let defaultDurationBounds: [Double] = [
        0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
    ]
}
