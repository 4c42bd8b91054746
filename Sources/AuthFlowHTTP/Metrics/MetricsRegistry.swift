import Synchronization

/// A set of metrics rendered together in the Prometheus text exposition format (version 0.0.4).
///
/// Register families once, at start-up, and keep the returned values; observations are atomic updates of
/// series (no lock for series declared at registration). There is no global registry: whoever serves
/// `/metrics` owns one and passes it to what reports.
///
/// ```swift
/// let registry = MetricsRegistry()
/// let requests = try registry.counter(
///     "app_requests_total", help: "Requests answered.", labels: ["status"], preregistered: [["200"]])
/// requests.labels("200")?.increment()
/// print(registry.render())
/// ```
package final class MetricsRegistry: Sendable {
    enum Family: Sendable {
        case counter(CounterFamily)
        case histogram(HistogramFamily)
        case sampled(SampledMetric)

        var name: String {
            switch self {
            case .counter(let family): family.name
            case .histogram(let family): family.name
            case .sampled(let metric): metric.name
            }
        }
    }

    private let families = Mutex<[Family]>([])

    /// Creates an empty registry.
    package init() {}

    /// The `Content-Type` of ``render()``.
    package static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// Registers a counter family.
    ///
    /// - Parameters:
    ///   - name: the metric name (`[a-zA-Z_:][a-zA-Z0-9_:]*`; by convention ending in `_total`).
    ///   - help: one line saying what it counts.
    ///   - labels: the label names.
    ///   - preregistered: label value combinations created now (exported as 0 until counted; looked up
    ///     without a lock).
    ///   - maximumSeries: the most series the family holds; observations of further combinations are dropped.
    /// - Throws: ``MetricsError`` `invalid_name`, `duplicate_name` or `label_count_mismatch`.
    package func counter(
        _ name: String, help: String, labels: [String] = [], preregistered: [[String]] = [],
        maximumSeries: Int = 1000
    ) throws(MetricsError) -> CounterFamily {
        try Self.validate(name: name, labels: labels, preregistered: preregistered)
        let family = CounterFamily(
            name: name, help: help, labelNames: labels, preregistered: labels.isEmpty ? [[]] : preregistered,
            maximumSeries: maximumSeries)
        try add(.counter(family))
        return family
    }

    /// Registers a histogram family.
    ///
    /// - Parameters:
    ///   - name: the metric name (`[a-zA-Z_:][a-zA-Z0-9_:]*`; by convention ending in a unit, `_seconds`).
    ///   - help: one line saying what it measures.
    ///   - labels: the label names.
    ///   - buckets: the finite upper bounds, strictly ascending (a `+Inf` bucket is added).
    ///   - preregistered: label value combinations created now (looked up without a lock).
    ///   - maximumSeries: the most series the family holds; observations of further combinations are dropped.
    /// - Throws: ``MetricsError`` `invalid_name`, `duplicate_name`, `label_count_mismatch` or `invalid_buckets`.
    package func histogram(
        _ name: String, help: String, labels: [String] = [],
        buckets: [Double] = HistogramFamily.defaultDurationBounds, preregistered: [[String]] = [],
        maximumSeries: Int = 1000
    ) throws(MetricsError) -> HistogramFamily {
        try Self.validate(name: name, labels: labels, preregistered: preregistered)
        guard !labels.contains("le") else {
            throw MetricsError(.invalidName, "expected histogram labels other than \"le\", found \"le\"")
        }
        guard !buckets.isEmpty, buckets.allSatisfy(\.isFinite), zip(buckets, buckets.dropFirst()).allSatisfy(<)
        else {
            throw MetricsError(
                .invalidBuckets, "expected finite, strictly ascending bucket bounds for \(name), found \(buckets)")
        }
        let family = HistogramFamily(
            name: name, help: help, labelNames: labels, upperBounds: buckets,
            preregistered: labels.isEmpty ? [[]] : preregistered, maximumSeries: maximumSeries)
        try add(.histogram(family))
        return family
    }

    /// Registers a metric read when rendering (process figures, sizes of caches); `read` answering `nil`
    /// leaves it out of that rendering.
    ///
    /// - Throws: ``MetricsError`` `invalid_name` or `duplicate_name`.
    package func sampled(
        _ name: String, help: String, type: SampledMetric.Kind, read: @escaping @Sendable () -> Double?
    ) throws(MetricsError) {
        try Self.validate(name: name, labels: [], preregistered: [])
        try add(.sampled(SampledMetric(name: name, help: help, kind: type, read: read)))
    }

    /// Every metric in the text exposition format 0.0.4, in registration order, series sorted by label values.
    package func render() -> String {
        let families = self.families.withLock { $0 }
        var text = ""
        for family in families {
            switch family {
            case .counter(let counter): Self.render(counter, into: &text)
            case .histogram(let histogram): Self.render(histogram, into: &text)
            case .sampled(let metric): Self.render(metric, into: &text)
            }
        }
        return text
    }

    private func add(_ family: Family) throws(MetricsError) {
        try families.withLock { families throws(MetricsError) in
            guard !families.contains(where: { $0.name == family.name }) else {
                throw MetricsError(.duplicateName, "expected a new metric name, found \(family.name) registered")
            }
            families.append(family)
        }
    }

    static func validate(name: String, labels: [String], preregistered: [[String]]) throws(MetricsError) {
        guard isMetricName(name) else {
            throw MetricsError(.invalidName, "expected a metric name like [a-zA-Z_:][a-zA-Z0-9_:]*, found \"\(name)\"")
        }
        for label in labels where !isLabelName(label) {
            throw MetricsError(
                .invalidName, "expected label names like [a-zA-Z_][a-zA-Z0-9_]* for \(name), found \"\(label)\"")
        }
        guard Set(labels).count == labels.count else {
            throw MetricsError(.invalidName, "expected distinct label names for \(name), found \(labels)")
        }
        for values in preregistered where values.count != labels.count {
            throw MetricsError(
                .labelCountMismatch,
                "expected \(labels.count) label values for \(name), found \(values.count) in \(values)")
        }
    }

    static func isMetricName(_ name: String) -> Bool {
        guard let first = name.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
            return false
        }
        return name.utf8.allSatisfy { isWordByte($0) || $0 == UInt8(ascii: ":") }
    }

    static func isLabelName(_ name: String) -> Bool {
        guard let first = name.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first),
            !name.hasPrefix("__")
        else { return false }
        return name.utf8.allSatisfy(isWordByte)
    }

    private static func isWordByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
    }
}
