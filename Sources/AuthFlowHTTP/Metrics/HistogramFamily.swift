/// A histogram metric with labels: one ``MetricHistogram`` per combination of label values, all with the same
/// bucket bounds. Bounded like ``CounterFamily``.
package final class HistogramFamily: Sendable {
    /// The metric name.
    package let name: String
    /// The help text.
    package let help: String
    /// The finite bucket upper bounds, ascending.
    package let upperBounds: [Double]
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
    package var labelNames: [String] { table.labelNames }

    /// The series for these label values, or `nil` when their number is wrong or the family is full.
    package func labels(_ values: String...) -> MetricHistogram? { table.series(values) }

    /// The series for these label values, or `nil` when their number is wrong or the family is full.
    package func labels(_ values: [String]) -> MetricHistogram? { table.series(values) }

    /// Seconds from 5 ms to 10 s, for request and sign-in durations.
    package static let defaultDurationBounds: [Double] = [
        0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
    ]
}
