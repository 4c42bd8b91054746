import AuthFlow
import AuthFlowDeployment
import Testing

/// `server.tracing`: where OpenTelemetry traces are exported.
@Suite struct TracingConfigurationTests {
    func yaml(_ lines: String) -> String {
        """
        server:
          public_url: http://localhost:8080
          secret: \(String(repeating: "x", count: 32))
        \(lines)

        """ + minimalProviders
    }

    @Test func tracesNothingWhenAbsent() throws {
        let settings = try #require(try makeLoader().load(yaml: yaml(""), fileName: "providers.yaml").server)
        #expect(settings.tracing == nil)
    }

    @Test func readsTheEndpointAndDefaults() throws {
        let settings = try #require(
            try makeLoader().load(
                yaml: yaml("  tracing:\n    endpoint: http://127.0.0.1:4318/v1/traces"), fileName: "providers.yaml"
            ).server)
        let tracing = try #require(settings.tracing)
        #expect(tracing.endpoint == "http://127.0.0.1:4318/v1/traces")
        #expect(tracing.serviceName == "authflow")
        #expect(tracing.timeout == 10)
        #expect(tracing.queueSize == 2048)
    }

    @Test func readsEveryKey() throws {
        let settings = try #require(
            try makeLoader().load(
                yaml: yaml(
                    """
                      tracing:
                        endpoint: https://collector.example.com/v1/traces
                        service_name: auth-edge
                        timeout: 3s
                        queue_size: 16
                    """), fileName: "providers.yaml"
            ).server)
        #expect(
            settings.tracing
                == TracingSettings(
                    endpoint: "https://collector.example.com/v1/traces", serviceName: "auth-edge", timeout: 3,
                    queueSize: 16))
    }

    @Test func refusesWhatIsWrongAtItsPosition() throws {
        let cases: [(String, ConfigurationIssue.Code, String)] = [
            ("  tracing:\n    service_name: x", .missingKey, "\"endpoint\" in server.tracing"),
            (
                "  tracing:\n    endpoint: http://collector.example.com/v1/traces", .insecureURL,
                "server.tracing.endpoint"
            ),
            ("  tracing:\n    endpoint: not a url", .invalidValue, "server.tracing.endpoint"),
            (
                "  tracing:\n    endpoint: http://127.0.0.1:4318/v1/traces\n    timeout: 5m", .invalidDuration,
                "server.tracing.timeout"
            ),
            (
                "  tracing:\n    endpoint: http://127.0.0.1:4318/v1/traces\n    queue_size: 0", .invalidValue,
                "server.tracing.queue_size"
            ),
            (
                "  tracing:\n    endpoint: http://127.0.0.1:4318/v1/traces\n    service_name: \"\"", .invalidValue,
                "server.tracing.service_name"
            ),
            ("  tracing:\n    endpoint: http://127.0.0.1:4318/v1/traces\n    sampler: always", .unknownKey, "sampler"),
            ("  tracing: http://127.0.0.1:4318", .wrongType, "server.tracing"),
        ]
        for (lines, code, mention) in cases {
            let error = try loadError(yaml(lines))
            #expect(error.issues.map(\.code) == [code], "\(lines)")
            #expect(error.description.contains(mention), "\(lines): \(error.description)")
            #expect(error.issues.first?.location != nil, "\(lines)")
        }
    }
}
