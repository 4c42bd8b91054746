import AuthFlow
import AuthFlowDeployment
import AuthFlowHTTP
import Foundation
import Testing

@Suite struct ServerLimitsConfigurationTests {
    static func server(_ lines: String) -> String {
        """
        server:
          public_url: https://app.example.com
          secret: 0123456789abcdef0123456789abcdef
        \(lines)
        """ + "\n" + minimalProviders
    }

    @Test func defaultsAreTheHardenedOnes() throws {
        let configuration = try makeLoader().load(yaml: Self.server(""), fileName: "providers.yaml")
        let server = try #require(configuration.server)
        #expect(server.limits == ConnectionLimits())
        #expect(server.limits.maxConnections == 4096)
        #expect(server.limits.maxConnectionsPerClient == 256)
        #expect(server.limits.requestTimeout == 10)
        #expect(server.limits.idleTimeout == 30)
        #expect(server.trustedProxies.isEmpty)
        #expect(server.rateLimits == RateLimitSettings())
        #expect(server.rateLimits?.starts == .init(perMinute: 600, burst: 100))
        #expect(server.rateLimits?.callbacks == .init(perMinute: 300, burst: 100))
    }

    @Test func readsLimitsProxiesAndRates() throws {
        let yaml = Self.server(
            """
              limits:
                max_connections: 100
                max_connections_per_client: 8
                request_timeout: 5s
                idle_timeout: 1m
              trusted_proxies: [10.0.0.0/8, "::1"]
              rate_limits:
                starts: { per_minute: 60, burst: 5 }
            """)
        let server = try #require(try makeLoader().load(yaml: yaml, fileName: "providers.yaml").server)
        #expect(
            server.limits
                == ConnectionLimits(
                    maxConnections: 100, maxConnectionsPerClient: 8, requestTimeout: 5, idleTimeout: 60))
        #expect(server.trustedProxies.map(\.description) == ["10.0.0.0/8", "::1/128"])
        #expect(server.rateLimits?.starts == .init(perMinute: 60, burst: 5))
        #expect(server.rateLimits?.callbacks == .init(perMinute: 300, burst: 100))
    }

    @Test func rateLimitsCanBeTurnedOff() throws {
        let yaml = Self.server("  rate_limits: off")
        let server = try #require(try makeLoader().load(yaml: yaml, fileName: "providers.yaml").server)
        #expect(server.rateLimits == nil)
    }

    @Test func refusesBadValuesWithTheirPosition() throws {
        let yaml = Self.server(
            """
              limits:
                max_connections: 0
                request_timeout: 10
                idel_timeout: 5s
              trusted_proxies: [10.0.0.0/33]
              rate_limits: sometimes
            """)
        let error = try loadError(yaml)
        let messages = error.issues.map(\.message)
        #expect(
            error.issues.map(\.code) == [.invalidValue, .invalidDuration, .unknownKey, .invalidValue, .invalidValue])
        #expect(messages[0].contains("server.limits.max_connections"))
        #expect(messages[1].contains("server.limits.request_timeout"))
        #expect(messages[2].contains("did you mean \"idle_timeout\""))
        #expect(messages[3].contains("server.trusted_proxies"))
        #expect(messages[4].contains("server.rate_limits"))
        #expect(error.issues.map { $0.location?.line } == [5, 6, 7, 8, 9])
    }

    @Test func readsTheIPv6PrefixOfOneClient() throws {
        let server = try #require(
            try makeLoader().load(yaml: Self.server("  limits: { ipv6_prefix: 56 }"), fileName: "providers.yaml").server
        )
        #expect(server.limits.ipv6Prefix == 56)
        #expect(ConnectionLimits().ipv6Prefix == 64)
        for bad in ["8", "129", "/64", "sixty-four"] {
            let error = try loadError(Self.server("  limits: { ipv6_prefix: \(bad) }"))
            #expect(error.issues.map(\.code) == [.invalidValue], "\(bad)")
            #expect(error.issues.first?.message.contains("server.limits.ipv6_prefix") == true)
        }
    }

    /// Trusting every address lets any client pick its own address through X-Forwarded-For: refused unless
    /// acknowledged.
    @Test func trustingEveryAddressNeedsAnAcknowledgement() throws {
        for any in ["0.0.0.0/0", "\"::/0\""] {
            let error = try loadError(Self.server("  trusted_proxies: [10.0.0.0/8, \(any)]"))
            #expect(error.issues.map(\.code) == [.invalidValue], "\(any)")
            let message = error.issues.first?.message ?? ""
            #expect(message.contains("server.trusted_proxies_allow_any"), "\(message)")
            #expect(error.issues.first?.location?.line == 4)
            let acknowledged = try makeLoader().load(
                yaml: Self.server("  trusted_proxies: [\(any)]\n  trusted_proxies_allow_any: true"),
                fileName: "providers.yaml")
            #expect(acknowledged.server?.trustedProxies.map(\.isEverything) == [true])
            let declined = try loadError(
                Self.server("  trusted_proxies: [\(any)]\n  trusted_proxies_allow_any: false"))
            #expect(declined.issues.map(\.code) == [.invalidValue])
        }
    }
}
