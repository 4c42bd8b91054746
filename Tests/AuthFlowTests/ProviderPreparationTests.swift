import AuthFlow
import AuthFlowCurl
import AuthFlowHTTP
import Synchronization
import Testing

/// `ProviderRegistry.resolve(_:httpClient:)` lets every plugin prepare for its provider before resolution.
@Suite struct ProviderPreparationTests {
    final class Counter: Sendable {
        let value = Mutex(0)
    }

    /// Resolvable only once prepared: preparation supplies the endpoints, named after the provider's issuer.
    struct PreparingPlugin: PreparedPlugin, ProviderPreparing {
        var preparedFor: String?
        var about: ProviderDescription {
            let base = preparedFor ?? "https://unprepared.invalid"
            return ProviderDescription(
                type: "corp",
                endpoints: ProviderEndpoints(
                    authorization: "\(base)/authorize", token: "\(base)/token", userinfo: "\(base)/me"))
        }
        func support(for capability: Capability, settings: ProviderSettings) -> CapabilitySupport {
            .unsupported(reason: "Corp SSO is plain OAuth 2.0")
        }
        var tokenEndpoint: any TokenEndpointStrategy { StandardTokenEndpoint(.clientSecretBasic) }
        var preparation: any ProviderPreparing { self }
        func prepared(for settings: ProviderSettings, context: ProviderPreparation) async throws(ConfigurationError)
            -> any ProviderPlugin
        {
            let counter = context.shared("corp.counter") { Counter() }
            counter.value.withLock { $0 += 1 }
            guard let issuer = settings.issuer, issuer != "https://broken.example" else {
                throw ConfigurationError(issues: [
                    ConfigurationIssue(
                        code: .invalidValue, message: "provider '\(settings.name)': cannot prepare",
                        location: settings.location)
                ])
            }
            return PreparingPlugin(preparedFor: issuer)
        }
    }

    static func configuration(_ issuers: [String: String]) throws -> Configuration {
        // The core reads `providers:` alone; the public URL `server.public_url` would give is set directly.
        var yaml = "providers:\n"
        for (name, issuer) in issuers.sorted(by: { $0.key < $1.key }) {
            yaml += "  \(name):\n    type: corp\n    client_id: a\n    client_secret: b\n    issuer: \(issuer)\n"
        }
        var configuration = try ConfigurationLoader(sections: [], environment: [:]).load(
            yaml: yaml, fileName: "test.yaml")
        configuration.publicURL = "https://app.example"
        return configuration
    }

    @Test func eachProviderResolvesWithThePluginItsPreparationReturned() async throws {
        let registry = ProviderRegistry([PreparingPlugin()])
        let context = ProviderPreparation(httpClient: CurlHTTPClient())
        let resolved = try await registry.resolve(
            try Self.configuration(["one": "https://one.example", "two": "https://two.example"]), preparation: context)
        #expect(resolved.map(\.endpoints.token) == ["https://one.example/token", "https://two.example/token"])
        #expect(
            resolved.map { ($0.plugin as? PreparingPlugin)?.preparedFor } == [
                "https://one.example", "https://two.example",
            ])
        // One shared value for the whole resolution.
        #expect(context.shared("corp.counter") { Counter() }.value.withLock { $0 } == 2)
    }

    @Test func preparationFailuresOfEveryProviderAreReportedTogether() async throws {
        let registry = ProviderRegistry([PreparingPlugin()])
        let error = await #expect(throws: ConfigurationError.self) {
            _ = try await registry.resolve(
                try Self.configuration([
                    "one": "https://broken.example", "two": "https://broken.example",
                    "three": "https://three.example",
                ]),
                httpClient: CurlHTTPClient())
        }
        #expect(error?.issues.map(\.message) == ["provider 'one': cannot prepare", "provider 'two': cannot prepare"])
    }
}
