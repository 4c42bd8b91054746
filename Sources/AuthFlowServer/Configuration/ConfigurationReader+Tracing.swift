internal import AuthFlowYAML

extension ConfigurationReader {
    static let tracingKeys = ["endpoint", "service_name", "timeout", "queue_size"]

    /// `server.tracing`: where OpenTelemetry traces are exported (OTLP/HTTP protobuf) and under which service name.
    /// Absent means no tracing. `endpoint` is required (an `https://` URL, or `http://` on a loopback host);
    /// `service_name` defaults to `authflow`; `timeout` (1s to 1m, default 10s) bounds each export; `queue_size`
    /// (1 to 100000, default 2048) is how many finished spans may wait for the exporter before more are dropped.
    mutating func readTracing(_ node: YAMLNode?, owner: YAMLMark) -> TracingSettings? {
        guard let node, let section = fields(node, owner: owner, path: "server.tracing", known: Self.tracingKeys)
        else { return nil }
        guard section.value("endpoint") != nil else {
            reportMissing("endpoint", in: section)
            return nil
        }
        let endpoint = url(section.value("endpoint"), path: "server.tracing.endpoint")
        var serviceName = TracingSettings.defaultServiceName
        if let text = text(section.value("service_name"), path: "server.tracing.service_name") {
            if TracingSettings.isValidServiceName(text.value) {
                serviceName = text.value
            } else {
                report(
                    .invalidValue,
                    "expected 1 to 128 printable ASCII characters for server.tracing.service_name, found \(text.shown)",
                    at: text.scalar.mark)
            }
        }
        var timeout = TracingSettings.defaultTimeout
        if let text = text(section.value("timeout"), path: "server.tracing.timeout", expected: "a duration") {
            if let seconds = ConfigurationSyntax.duration(text.value), (1...60).contains(seconds) {
                timeout = Double(seconds)
            } else {
                report(
                    .invalidDuration,
                    "expected a duration like 10s or 1m (1s to 1m) for server.tracing.timeout, found \(text.shown)",
                    at: text.scalar.mark)
            }
        }
        let queueSize =
            integer(section.value("queue_size"), path: "server.tracing.queue_size", range: 1...100_000)
            ?? TracingSettings.defaultQueueSize
        guard let endpoint else { return nil }
        return TracingSettings(endpoint: endpoint, serviceName: serviceName, timeout: timeout, queueSize: queueSize)
    }
}
