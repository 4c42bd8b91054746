import AuthFlow
import AuthFlowDeployment
import Testing

/// `server.native_session_max_age`: how long a bearer refresh chain lasts from its sign-in; 90 days by default,
/// never shorter than `native_session_ttl`.
@Suite struct NativeSessionMaxAgeConfigurationTests {
    let day = 86_400.0

    func yaml(_ lines: String) -> String {
        """
        server:
          public_url: https://app.example
          secret: \(String(repeating: "x", count: 32))
        \(lines)

        """ + minimalProviders
    }

    @Test func isNinetyDaysByDefaultOrTheSessionLifetimeWhenThatIsLonger() throws {
        let plain = try makeLoader().load(yaml: yaml(""), fileName: "providers.yaml")
        #expect(plain.server?.nativeSessionMaxAge == 90 * day)
        let long = try makeLoader().load(yaml: yaml("  native_session_ttl: 120d"), fileName: "providers.yaml")
        #expect(long.server?.nativeSessionMaxAge == 120 * day)
    }

    @Test func readsADurationNotShorterThanTheSessionLifetime() throws {
        let configuration = try makeLoader().load(
            yaml: yaml("  native_session_ttl: 1d\n  native_session_max_age: 14d"), fileName: "providers.yaml")
        #expect(configuration.server?.nativeSessionMaxAge == 14 * day)
        let equal = try makeLoader().load(yaml: yaml("  native_session_max_age: 30d"), fileName: "providers.yaml")
        #expect(equal.server?.nativeSessionMaxAge == 30 * day)
    }

    @Test func refusesAMaxAgeShorterThanTheSessionLifetimeAtItsPosition() throws {
        let error = try loadError(yaml("  native_session_ttl: 30d\n  native_session_max_age: 7d"))
        #expect(error.issues.map(\.code) == [.invalidValue])
        let issue = try #require(error.issues.first)
        #expect(issue.message.contains("at least server.native_session_ttl"), "\(issue.message)")
        #expect(issue.location?.line == 5)
        #expect(issue.location?.column == 27)
    }

    @Test func refusesWhatIsNoDurationOrOverFourHundredDaysAtItsPosition() throws {
        for value in ["forever", "0s", "-5d", "401d", "[90d]"] {
            let error = try loadError(yaml("  native_session_max_age: \(value)"))
            #expect(error.issues.count == 1, "\(value)")
            #expect(error.issues.first?.location?.line == 4, "\(value)")
            #expect(error.issues.first?.message.contains("server.native_session_max_age") == true, "\(value)")
        }
    }
}
