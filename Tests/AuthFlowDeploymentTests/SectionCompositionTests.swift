import AuthFlow
import AuthFlowDeployment
import AuthFlowYAML
import Testing

/// `providers.yaml` is read by one loader composing the core's `providers:` with the sections their modules
/// own (`server:` in AuthFlowServer, `store:` and `sandbox:` in AuthFlowDeployment).
@Suite struct SectionCompositionTests {
    private static let secret = String(repeating: "s", count: 32)

    @Test func reportsAnErrorOfEverySectionInOneRunWithPositions() throws {
        let yaml = """
            server:
              public_url: https://app.example.com
              secret: \(Self.secret)
              session_ttl: forever
            store:
              kind: sqlite
              operation_timeout: 10m
            sandbox:
              listen: nowhere
            providers:
              google:
                type: google
                client_id: abc
                scopes: openid
            """
        let error = try loadError(yaml)
        let found = error.issues.map { "\($0.code) \($0.location?.line ?? 0):\($0.location?.column ?? 0)" }
        #expect(
            found == [
                "invalid_duration 4:16", "invalid_duration 7:22", "invalid_value 9:11", "wrong_type 14:13",
            ])
        #expect(error.issues[0].message.contains("server.session_ttl"))
        #expect(error.issues[1].message.contains("store.operation_timeout"))
        #expect(error.issues[2].message.contains("sandbox.listen"))
        #expect(error.issues[3].message.contains("providers.google.scopes"))
        // What could be read is kept, each section under its owner's accessor.
        let readable = try #require(error.readable)
        #expect(readable.server?.publicURL == "https://app.example.com")
        #expect(readable.store.kind == .sqlite)
    }

    @Test func theServerSectionGivesProvidersTheirRedirectURI() throws {
        let yaml = """
            server:
              public_url: https://app.example.com/
              secret: \(Self.secret)
              path_prefix: /login
            \(minimalProviders)
            """
        let configuration = try makeLoader().load(yaml: yaml, fileName: "providers.yaml")
        #expect(configuration.publicURL == "https://app.example.com")
        #expect(configuration.pathPrefix == "/login")
        let google = try #require(configuration.provider(named: "google"))
        #expect(google.redirectURI == "https://app.example.com/login/google/callback")
        #expect(configuration.redirectURI(for: google) == "https://app.example.com/login/google/callback")
    }

    @Test func settingTheServerSettingsMovesTheCallbackBase() {
        var configuration = Configuration(providers: [])
        #expect(configuration.publicURL == nil)
        #expect(configuration.pathPrefix == Configuration.defaultPathPrefix)
        configuration.server = ServerSettings(publicURL: "https://id.example.com", secret: nil, pathPrefix: "/api/auth")
        #expect(configuration.publicURL == "https://id.example.com")
        #expect(configuration.pathPrefix == "/api/auth")
        configuration.server = nil
        #expect(configuration.publicURL == nil)
        #expect(configuration.pathPrefix == "/auth")
    }

    @Test func theCoreAloneReadsProvidersAndRefusesOtherSections() throws {
        let yaml = """
            server:
              public_url: https://app.example.com
            \(minimalProviders)
            """
        let loader = ConfigurationLoader(sections: [], environment: [:]) { _ in throw CancellationError() }
        #expect(throws: ConfigurationError.self) { try loader.load(yaml: yaml, fileName: "providers.yaml") }
        do {
            _ = try loader.load(yaml: yaml, fileName: "providers.yaml")
        } catch {
            #expect(error.issues.map(\.code) == [.unknownKey])
            #expect(error.issues.first?.message == "unknown key \"server\"; known keys: providers")
            #expect(error.issues.first?.location?.line == 1)
        }
        // The section is not read, so its credentials are not known either: its value is not shown.
        let flow = "store: {kind: postgres, postgres_url: \"postgresql://app:hunter2@db/app\"}\n\(minimalProviders)"
        do {
            _ = try loader.load(yaml: flow, fileName: "providers.yaml")
            Issue.record("expected the configuration to be refused")
        } catch {
            #expect(error.issues.map(\.code) == [.unknownKey])
            #expect(error.issues.first?.location?.sourceLine == "store: <redacted>")
            #expect(!error.description.contains("hunter2"))
        }
        let providersOnly = try loader.load(yaml: minimalProviders, fileName: "providers.yaml")
        #expect(providersOnly.providers.map(\.name) == ["google"])
        #expect(providersOnly.publicURL == nil)
    }

    @Test func unknownTopLevelKeysAreSuggestedFromEveryComposedSection() throws {
        let error = try loadError("stor:\n  kind: memory\n\(minimalProviders)")
        #expect(error.issues.map(\.message) == ["unknown key \"stor\"; did you mean \"store\"?"])
        #expect(ConfigurationSection.standard.map(\.key) == ["server", "sandbox", "store"])
    }

    @Test func aSectionOfAnotherModuleIsReadInTheSameRun() throws {
        // A section the core knows nothing of: its value, its issues and its credential keys come from it alone.
        let cache = ConfigurationSection(
            key: "cache", credentialKeys: ["cache_token"],
            read: { reader, node, owner in
                guard let fields = reader.fields(node, owner: owner, path: "cache", known: ["size", "cache_token"])
                else { return nil }
                let size = reader.string(fields.value("size"), path: "cache.size") ?? "small"
                if size != "small" && size != "large" {
                    reader.report(
                        .invalidValue, "expected small or large for cache.size, found \(size)",
                        at: fields.value("size")?.mark)
                }
                return ConfigurationSectionValue(size)
            })
        let loader = ConfigurationLoader(sections: [.server, cache], environment: [:]) { _ in
            throw CancellationError()
        }
        let configuration = try loader.load(yaml: "cache:\n  size: large\n\(minimalProviders)", fileName: "p.yaml")
        #expect(configuration.section("cache", as: String.self) == "large")
        do {
            _ = try loader.load(
                yaml: "cache: {size: huge, cache_token: hunter2-hunter2}\nsandbox: {}\n\(minimalProviders)",
                fileName: "p.yaml")
            Issue.record("expected the configuration to be refused")
        } catch {
            #expect(error.issues.map(\.code) == [.invalidValue, .unknownKey])
            #expect(error.issues.map { $0.location?.line } == [1, 2])
            #expect(error.issues.first?.location?.sourceLine == "cache: {size: huge, cache_token: <redacted>")
            #expect(!error.description.contains("hunter2"))
        }
    }
}
