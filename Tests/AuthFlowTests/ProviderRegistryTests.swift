import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import Foundation
import Testing

/// A plugin with one of each capability support, to test resolution rules.
private struct StrictPlugin: ProviderPlugin, RequiredSettingsDeclaring {
    var about: ProviderDescription {
        ProviderDescription(
            type: "strict",
            endpoints: ProviderEndpoints(
                authorization: "https://strict.test/a", token: "https://strict.test/t",
                userinfo: "https://strict.test/u"))
    }
    func support(for capability: Capability, settings: ProviderSettings) -> CapabilitySupport {
        switch capability {
        case .pkce: .required
        case .oidc: .unsupported(reason: "Strict has no OpenID Connect")
        case .jwtClientAuth: .unsupported(reason: "Strict takes static secrets only")
        case .formPost: .optional(default: true)
        }
    }
    var tokenEndpoint: any TokenEndpointStrategy { self }
    func method(capabilities: Set<Capability>) -> ClientAuthentication { .clientSecretBasic }
    func requiredSettings(capabilities: Set<Capability>) -> [ProviderSettingKey] { [.clientSecret, .teamID] }
}

@Suite struct ProviderRegistryTests {
    static func at(_ line: Int, _ column: Int, _ text: String) -> AuthFlow.SourceLocation {
        AuthFlow.SourceLocation(fileName: "providers.yaml", line: line, column: column, sourceLine: text)
    }

    let registry = ProviderRegistry([
        StrictPlugin(), TestPlugin(clientSecretKey: TestProviders.clientSecretKey),
    ])

    func settings(
        type: String = "strict", capabilities: [String: Bool] = [:], clientID: String? = "id",
        clientSecret: String? = "secret", teamID: String? = "TEAM", endpoints: ProviderEndpoints = ProviderEndpoints()
    ) -> ProviderSettings {
        var capabilityLocations: [String: AuthFlow.SourceLocation] = [:]
        for (index, key) in capabilities.keys.sorted().enumerated() {
            capabilityLocations[key] = Self.at(5, 20 + index * 10, "    capabilities: {…}")
        }
        return ProviderSettings(
            name: "corp", type: type, clientID: clientID, clientSecret: clientSecret.map(Secret.init), teamID: teamID,
            capabilities: capabilities, endpoints: endpoints, location: Self.at(2, 3, "  corp:"),
            typeLocation: Self.at(3, 11, "    type: \(type)"), capabilityLocations: capabilityLocations)
    }

    func issues(_ settings: ProviderSettings, publicURL: String? = "https://app.test") -> [ConfigurationIssue] {
        do {
            _ = try registry.resolve(settings, publicURL: publicURL)
            return []
        } catch {
            return error.issues
        }
    }

    @Test func resolvesDefaultsAndEffectiveValues() throws {
        let provider = try registry.resolve(settings(), publicURL: "https://app.test/")
        #expect(provider.name == "corp")
        #expect(provider.type == "strict")
        #expect(provider.capabilities == [.pkce, .formPost])
        #expect(provider.redirectURI == "https://app.test/auth/corp/callback")
        #expect(provider.clientAuthentication == .clientSecretBasic)
        #expect(provider.signInProtocol == .oauth2)
        #expect(provider.callbackMethod == .post)
        #expect(provider.capabilitySupport[.oidc] == .unsupported(reason: "Strict has no OpenID Connect"))
    }

    @Test func refusesUnsupportedCapabilityQuotingTheReason() {
        let found = issues(settings(capabilities: ["oidc": true]))
        #expect(found.count == 1)
        #expect(found.first?.code.rawValue == "unsupported_capability")
        #expect(
            found.first?.message == "provider 'corp' (type strict) cannot enable oidc: Strict has no OpenID Connect")
        #expect(found.first?.location == Self.at(5, 20, "    capabilities: {…}"))
    }

    @Test func refusesDisablingARequiredCapability() {
        let found = issues(settings(capabilities: ["pkce": false]))
        #expect(found.map(\.message) == ["provider 'corp' (type strict) requires pkce; it cannot be disabled"])
        #expect(found.first?.code.rawValue == "required_capability")
    }

    @Test func switchesOptionalCapabilities() throws {
        let off = try registry.resolve(settings(capabilities: ["form_post": false]), publicURL: "https://app.test")
        #expect(off.capabilities == [.pkce])
        #expect(off.callbackMethod == .get)
    }

    @Test func refusesUnknownCapabilityWithSuggestion() {
        let found = issues(settings(capabilities: ["pcke": true]))
        #expect(
            found.map(\.message) == [
                "unknown capability 'pcke' for provider 'corp'; did you mean 'pkce'? "
                    + "(known capabilities: pkce, oidc, jwt_client_auth, form_post)"
            ])
        #expect(found.first?.code.rawValue == "unknown_capability")
    }

    @Test func refusesUnknownTypeSuggestingTheNearest() {
        let found = issues(settings(type: "strikt"))
        #expect(
            found.map(\.message) == [
                "unknown provider type 'strikt' for provider 'corp'; did you mean 'strict'? (known types: strict, test)"
            ])
        #expect(found.first?.code.rawValue == "unknown_provider_type")
        #expect(found.first?.location == Self.at(3, 11, "    type: strikt"))
        let far = issues(settings(type: "zzzzzzzz"))
        #expect(
            far.first?.message == "unknown provider type 'zzzzzzzz' for provider 'corp' (known types: strict, test)")
    }

    @Test func refusesMissingRequiredKeys() {
        let found = issues(settings(clientID: nil, clientSecret: nil, teamID: ""))
        #expect(
            found.map(\.message) == [
                "provider 'corp' (type strict) requires 'client_id'",
                "provider 'corp' (type strict) requires 'client_secret' (or 'client_secret_file')",
                "provider 'corp' (type strict) requires 'team_id'",
            ])
        #expect(found.allSatisfy { $0.code.rawValue == "missing_required_key" })
        #expect(found.allSatisfy { $0.location == Self.at(2, 3, "  corp:") })
    }

    @Test func refusesMissingRedirectURI() {
        let found = issues(settings(type: "test", capabilities: ["oidc": false]), publicURL: nil)
        #expect(
            found.map(\.message) == [
                "provider 'corp' (type test) has no redirect URI; set redirect_uri or server.public_url"
            ])
        #expect(found.first?.code.rawValue == "missing_redirect_uri")
    }

    @Test func refusesMissingEndpointsAndIssuer() {
        let registry = ProviderRegistry([EditDistanceProbe.Named(type: "bare")])
        let oauth2 = ProviderSettings(
            name: "bare", type: "bare", clientID: "c", clientSecret: Secret("s"), location: Self.at(1, 1, "bare:"))
        do {
            _ = try registry.resolve(oauth2, publicURL: "https://app.test")
            Issue.record("expected missing endpoints")
        } catch {
            #expect(
                error.issues.map(\.message) == [
                    "provider 'bare' (type bare) has no authorization endpoint; set endpoints.authorization",
                    "provider 'bare' (type bare) has no token endpoint; set endpoints.token",
                    "provider 'bare' (type bare) has no userinfo endpoint; set endpoints.userinfo",
                ])
        }
        let oidc = ProviderSettings(
            name: "bare", type: "bare", clientID: "c", clientSecret: Secret("s"), capabilities: ["oidc": true],
            endpoints: ProviderEndpoints(authorization: "https://b.test/a", token: "https://b.test/t"),
            location: Self.at(1, 1, "bare:"))
        do {
            _ = try registry.resolve(oidc, publicURL: "https://app.test")
            Issue.record("expected a missing JWKS endpoint and issuer")
        } catch {
            #expect(
                error.issues.map(\.message) == [
                    "provider 'bare' (type bare) has no jwks endpoint; set endpoints.jwks",
                    "provider 'bare' (type bare) has oidc enabled but no issuer; set issuer",
                ])
        }
    }

    @Test func reportsEveryIssueAtOnce() {
        let found = issues(settings(capabilities: ["oidc": true, "pkce": false, "formpost": true], clientSecret: nil))
        #expect(
            Set(found.map(\.code.rawValue)) == [
                "unsupported_capability", "required_capability", "unknown_capability", "missing_required_key",
            ])
        #expect(found.count == 4)
    }

    @Test func resolvesAWholeConfigurationCollectingIssuesAcrossProviders() {
        let good = settings()
        let bad = ProviderSettings(
            name: "other", type: "nope", clientID: "x", location: Self.at(9, 3, "  other:"),
            typeLocation: Self.at(10, 11, "    type: nope"))
        let worse = settings(capabilities: ["oidc": true])
        let configuration = Configuration(providers: [good, bad, worse])
        #expect(throws: ConfigurationError.self) { try registry.resolve(configuration) }
        do {
            _ = try registry.resolve(configuration)
        } catch {
            #expect(
                error.issues.map(\.code.rawValue).sorted()
                    == [
                        "missing_redirect_uri", "missing_redirect_uri",
                        "unknown_provider_type", "unsupported_capability",
                    ].sorted())
        }
    }

    @Test func overridesEndpointsButNotTheIssuer() throws {
        let provider = try TestProviders.resolve(["oidc": true])
        #expect(provider.issuer == "https://idp.test")
        let overridden = try ProviderRegistry([TestPlugin(clientSecretKey: TestProviders.clientSecretKey)]).resolve(
            ProviderSettings(
                name: "test", type: "test", clientID: "c", clientSecret: Secret("s"),
                capabilities: ["oidc": true], endpoints: ProviderEndpoints(token: "http://127.0.0.1:9/token"),
                location: Self.at(1, 1, "test:")),
            publicURL: "https://app.test")
        #expect(overridden.endpoints.token == "http://127.0.0.1:9/token")
        #expect(overridden.endpoints.authorization == "https://idp.test/authorize")
        #expect(overridden.issuer == "https://idp.test")
        #expect(overridden.scopes.first == "openid")
        #expect(overridden.audiences == ["c"])
    }

    @Test func registersAnApplicationPluginAndReplacesByType() throws {
        var registry = ProviderRegistry()
        #expect(registry.plugin(forType: "strict") == nil)
        registry.register(StrictPlugin())
        #expect(registry.types == ["strict"])
        #expect(registry.plugin(forType: "strict")?.displayName == "strict")
        registry.register(StrictPlugin())
        #expect(registry.types == ["strict"])
    }

    @Test func suggestsNearestWords() {
        #expect(EditDistanceProbe.nearest("gogle", ["apple", "google", "facebook", "x"]) == "google")
        #expect(EditDistanceProbe.nearest("facebok", ["apple", "google", "facebook", "x"]) == "facebook")
        #expect(EditDistanceProbe.nearest("azure", ["apple", "google", "facebook", "x"]) == nil)
    }
}

/// Reaches the registry's suggestion through its public behaviour.
enum EditDistanceProbe {
    struct Named: ProviderPlugin {
        let type: String
        var about: ProviderDescription { ProviderDescription(type: type, endpoints: ProviderEndpoints()) }
        func support(for capability: Capability, settings: ProviderSettings) -> CapabilitySupport {
            .optional(default: false)
        }
        var tokenEndpoint: any TokenEndpointStrategy { StandardTokenEndpoint(.clientSecretPost) }
    }

    static func nearest(_ word: String, _ types: [String]) -> String? {
        let registry = ProviderRegistry(types.map(Named.init))
        let settings = ProviderSettings(
            name: "p", type: word, clientID: "c",
            location: AuthFlow.SourceLocation(fileName: "f", line: 1, column: 1, sourceLine: nil))
        do {
            _ = try registry.resolve(settings, publicURL: "https://a.test")
            return nil
        } catch {
            guard let message = error.issues.first?.message, let range = message.range(of: "did you mean '") else {
                return nil
            }
            return String(message[range.upperBound...].prefix { $0 != "'" })
        }
    }
}
