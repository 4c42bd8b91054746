/// A counter metric with labels: one ``MetricCounter`` per combination of label values.
///
/// Combinations given at registration are looked up without a lock; others are added on first use, up to the
/// family's series cap (beyond it `labels(_:)` answers `nil`, so user data can never grow the output).
package final class CounterFamily: Sendable {
    /// The metric name.
    package let name: String
    /// The help text.
    package let help: String
    let table: SeriesTable<MetricCounter>

    init(name: String, help: String, labelNames: [String], preregistered: [[String]], maximumSeries: Int) {
        self.name = name
        self.help = help
        self.table = SeriesTable(
            labelNames: labelNames, preregistered: preregistered, maximumSeries: maximumSeries,
            make: { MetricCounter() })
    }

    /// The label names, in order.
    package var labelNames: [String] { table.labelNames }

    /// The series for these label values (in ``labelNames`` order), or `nil` when their number is wrong or the
    /// family is full.
    package func labels(_ values: String...) -> MetricCounter? { table.series(values) }

    /// The series for these label values (in ``labelNames`` order), or `nil` when their number is wrong or the
    /// family is full.
    package func labels(_ values: [String]) -> MetricCounter? { table.series(values) }
}
