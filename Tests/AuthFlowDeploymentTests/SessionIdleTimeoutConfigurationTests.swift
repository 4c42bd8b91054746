import AuthFlow
import AuthFlowDeployment
import Testing

/// `server.session_idle_timeout`: off by default, a duration shorter than `session_ttl` otherwise.
@Suite struct SessionIdleTimeoutConfigurationTests {
    func yaml(_ lines: String) -> String {
        """
        server:
          public_url: https://app.example
          secret: \(String(repeating: "x", count: 32))
        \(lines)

        """ + minimalProviders
    }

    @Test func isOffByDefaultAndWhenOff() throws {
        for lines in ["", "  session_idle_timeout: off"] {
            let configuration = try makeLoader().load(yaml: yaml(lines), fileName: "providers.yaml")
            #expect(configuration.server?.sessionIdleTimeout == nil, "\(lines)")
        }
    }

    @Test func readsADurationShorterThanTheSessionLifetime() throws {
        let configuration = try makeLoader().load(
            yaml: yaml("  session_ttl: 8h\n  session_idle_timeout: 30m"), fileName: "providers.yaml")
        #expect(configuration.server?.sessionIdleTimeout == 1800)
    }

    @Test func refusesATimeoutNotShorterThanTheSessionLifetime() throws {
        for lines in ["  session_ttl: 1h\n  session_idle_timeout: 1h", "  session_idle_timeout: 9h"] {
            let error = try loadError(yaml(lines))
            #expect(error.issues.map(\.code) == [.invalidValue], "\(lines)")
            #expect(error.issues.first?.message.contains("shorter than server.session_ttl") == true)
        }
    }

    @Test func refusesWhatIsNoDuration() throws {
        for value in ["soon", "0s", "-5m", "[1h]"] {
            let error = try loadError(yaml("  session_idle_timeout: \(value)"))
            #expect(error.issues.count == 1, "\(value)")
            #expect(error.issues.first?.location?.line == 4, "\(value)")
        }
    }
}
