/// `server.tracing`: OpenTelemetry traces exported over OTLP/HTTP (docs/tracing.md).
package struct TracingSettings: Sendable, Hashable {
    /// The OTLP/HTTP traces URL spans are POSTed to (`http://127.0.0.1:4318/v1/traces` for a local collector).
    package var endpoint: String
    /// The `service.name` resource attribute; default `authflow`.
    package var serviceName: String
    /// Seconds one export may take before it counts as failed; default 10.
    package var timeout: Double
    /// How many finished spans may wait for the exporter; more are dropped (and counted). Default 2048.
    package var queueSize: Int

    /// `authflow`, the service name unless `server.tracing.service_name` says otherwise.
    package static let defaultServiceName = "authflow"
    /// 10 seconds, the OTLP exporter's default timeout.
    package static let defaultTimeout: Double = 10
    /// 2048 spans, the OpenTelemetry batch span processor's default queue size.
    package static let defaultQueueSize = 2048

    /// Creates tracing settings.
    package init(
        endpoint: String, serviceName: String = TracingSettings.defaultServiceName,
        timeout: Double = TracingSettings.defaultTimeout, queueSize: Int = TracingSettings.defaultQueueSize
    ) {
        self.queueSize = queueSize
        self.endpoint = endpoint
        self.serviceName = serviceName
        self.timeout = timeout
    }

    /// Whether `name` can be a service name: 1 to 128 printable ASCII characters.
    package static func isValidServiceName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 128 && name.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }
}
