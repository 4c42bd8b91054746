/// A metric whose value is read when the registry renders (see ``MetricsRegistry/sampled(_:help:type:read:)``).
public struct SampledMetric: Sendable {
    /// How Prometheus should treat the value.
    public enum Kind: String, Sendable, Hashable {
        /// Only ever increases (e.g. CPU seconds).
        case counter
        /// Goes up and down (e.g. resident memory).
        case gauge
    }

    /// The metric name.
    public let name: String
    /// The help text.
    public let help: String
    /// Counter or gauge.
    public let kind: Kind
    let read: @Sendable () -> Double?
}
