/// A metric whose value is read when the registry renders (see ``MetricsRegistry/sampled(_:help:type:read:)``).
package struct SampledMetric: Sendable {
    /// How Prometheus should treat the value.
    package enum Kind: String, Sendable, Hashable {
        /// Only ever increases (e.g. CPU seconds).
        case counter
        /// Goes up and down (e.g. resident memory).
        case gauge
    }

    /// The metric name.
    package let name: String
    /// The help text.
    package let help: String
    /// Counter or gauge.
    package let kind: Kind
    let read: @Sendable () -> Double?
}
