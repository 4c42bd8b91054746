import AuthFlow
import AuthFlowDeployment
import Testing

/// `server.metrics_listen` and `server.log_format`.
@Suite struct ObservabilityConfigurationTests {
    func server(_ lines: String) throws -> ServerSettings? {
        let yaml = """
            server:
              public_url: http://localhost:8080
              secret: \(String(repeating: "x", count: 32))
            \(lines)

            """ + minimalProviders
        return try makeLoader().load(yaml: yaml, fileName: "providers.yaml").server
    }

    @Test func servesNoMetricsAndWritesTextByDefault() throws {
        let settings = try #require(try server(""))
        #expect(settings.metricsListen == nil)
        #expect(settings.logFormat == .text)
    }

    @Test func readsABarePortAsLoopback() throws {
        let settings = try #require(try server("  metrics_listen: 9464\n  log_format: json"))
        #expect(settings.metricsListen == ListenAddress(host: "127.0.0.1", port: 9464))
        #expect(settings.logFormat == .json)
    }

    @Test func keepsAnExplicitHost() throws {
        let settings = try #require(try server("  metrics_listen: 0.0.0.0:9464"))
        #expect(settings.metricsListen == ListenAddress(host: "0.0.0.0", port: 9464))
        let ipv6 = try #require(try server("  metrics_listen: \"[::1]:9464\""))
        #expect(ipv6.metricsListen == ListenAddress(host: "::1", port: 9464))
    }

    @Test func refusesAMalformedMetricsAddress() throws {
        for value in ["nowhere", "99999", "127.0.0.1:70000", "\"\""] {
            let error = try loadError(
                """
                server:
                  public_url: http://localhost:8080
                  secret: \(String(repeating: "x", count: 32))
                  metrics_listen: \(value)

                """ + minimalProviders)
            #expect(error.issues.map(\.code) == [.invalidValue], "\(value)")
            #expect(error.description.contains("server.metrics_listen"), "\(value)")
        }
    }

    @Test func refusesAnUnknownLogFormat() throws {
        let error = try loadError(
            """
            server:
              public_url: http://localhost:8080
              secret: \(String(repeating: "x", count: 32))
              log_format: xml

            """ + minimalProviders)
        #expect(error.issues.map(\.code) == [.invalidValue])
        #expect(error.description.contains("expected text or json for server.log_format, found \"xml\""))
    }
}
