import AuthFlow
import Testing

/// What a plugin declares on its ``ProviderDescription`` instead of the core naming provider types: the security
/// profiles it may be configured for, and whether it signs in without an OAuth client.
@Suite struct ProviderDeclarationTests {
    static let location = SourceLocation(fileName: "providers.yaml", line: 1, column: 3, sourceLine: nil)

    static func plugin(_ type: String, profiles: Set<ProviderProfile> = []) -> TestPlugin {
        var plugin = TestPlugin(clientSecretKey: TestProviders.clientSecretKey)
        plugin.typeName = type
        plugin.profiles = profiles
        return plugin
    }

    static func fapi2Issues(type: String, in registry: ProviderRegistry) -> [String] {
        var settings = ProviderSettings(
            name: "corp", type: type, clientID: "c", clientSecret: Secret("s"), capabilities: ["oidc": true],
            location: location)
        settings.profile = .fapi2
        do {
            _ = try registry.resolve(settings, publicURL: "https://app.test")
            return []
        } catch {
            return error.issues.map(\.message)
        }
    }

    @Test func profileFAPI2IsRefusedUnlessThePluginDeclaresIt() {
        let registry = ProviderRegistry([
            Self.plugin("plain"), Self.plugin("fapi-idp", profiles: [.fapi2]),
            Self.plugin("fapi-other", profiles: [.fapi2]),
        ])
        #expect(registry.types(supporting: .fapi2) == ["fapi-idp", "fapi-other"])
        let refused = Self.fapi2Issues(type: "plain", in: registry)
        #expect(
            refused == [
                "provider 'corp' (type plain) has profile: fapi2, which applies to type: fapi-idp or fapi-other only "
                    + "(found type plain); remove profile"
            ])
        // A declaring plugin gets the profile's own checks instead (PAR, PKCE, private_key_jwt, DPoP).
        let checked = Self.fapi2Issues(type: "fapi-idp", in: registry)
        #expect(!checked.isEmpty)
        #expect(!checked.contains { $0.contains("applies to") })
        #expect(
            Self.fapi2Issues(type: "plain", in: ProviderRegistry([Self.plugin("plain")])).first?.contains(
                "applies to no registered type only (found type plain)") == true)
    }

    @Test func clientIDIsRequiredUnlessTheLoaderKnowsTheTypeSignsInWithoutAClient() throws {
        var clientless = Self.plugin("badge")
        clientless.ownProtocol = .webAuthn
        let registry = ProviderRegistry([Self.plugin("plain"), clientless])
        #expect(registry.typesWithoutClient == ["badge"])

        let yaml = "providers:\n  door:\n    type: badge\n"
        var loader = ConfigurationLoader(sections: [], environment: [:])
        #expect(throws: ConfigurationError.self) { _ = try loader.load(yaml: yaml, fileName: "providers.yaml") }
        do {
            _ = try loader.load(yaml: yaml, fileName: "providers.yaml")
        } catch {
            #expect(error.issues.map(\.message).contains { $0.contains("client_id") })
        }
        loader.typesWithoutClient = registry.typesWithoutClient
        let configuration = try loader.load(yaml: yaml, fileName: "providers.yaml")
        #expect(configuration.providers.map(\.type) == ["badge"])
        #expect(configuration.providers.first?.clientID == nil)
    }
}
